import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/open.js';
import { migrateToLatest } from './db/migrate.js';
import { redisStore } from './http/rate-limit.js';
import { startMaintenance } from './maintenance.js';
import { createDispatcher } from './modules/webhooks/webhooks.dispatcher.js';

/** Entry point: loadConfig → openDatabase → migrate → buildApp → listen; drains on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`svc: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const db = openDatabase(config.database, { poolSize: config.databasePoolSize });
  await migrateToLatest(db);
  const app = await buildApp(config, {
    db,
    rateLimitStore: config.redisUrl ? redisStore(config.redisUrl) : undefined,
  });
  const maintenance = startMaintenance(db, app.log, config.sessionIdleMinutes * 60_000_000);
  // Webhook delivery has its own connections on PostgreSQL, so that it never takes the requests' (SQLite: one
  // connection per process, whose write lock it shares with them).
  const deliveryDb = config.database.dialect === 'postgres' ? openDatabase(config.database, { poolSize: 2 }) : db;
  const dispatcher = createDispatcher({
    db: deliveryDb,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    log: app.log,
  });
  dispatcher.start();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining in-flight requests, then exiting');
    maintenance.stop();
    try {
      // Deliveries under way finish (or time out) before the database closes; an unfinished one is attempted
      // again when its lease runs out.
      await dispatcher.stop();
      if (deliveryDb !== db) await deliveryDb.close();
      await app.close();
      await db.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = await app.listen({ host: config.host, port: config.port });
  app.log.info({ address, database: config.database.dialect, docs: `${address}/docs` }, 'svc is listening');
}

main().catch((error: unknown) => {
  process.stderr.write(`svc: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
