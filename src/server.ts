import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from './app.js';
import { runPrimary } from './cluster.js';
import {
  clusterMetrics,
  hearRelayedEvents,
  primaryRateLimitStore,
  relayEventsToPrimary,
  workerSlot,
} from './cluster-worker.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/open.js';
import { migrateToLatest } from './db/migrate.js';
import { packageVersion } from './lib/version.js';
import { backupDirProblem, startBackupSchedule } from './modules/backup/backup.schedule.js';
import { RECEIPT_GRACE_MS, startMaintenance } from './maintenance.js';
import { receiptsService, receiptStore } from './modules/receipts/receipts.service.js';
import { createDispatcher } from './modules/webhooks/webhooks.dispatcher.js';
import { eventsBell, wakeOnEvents } from './modules/webhooks/events.bell.js';
import { turnOff } from './speed/switches.js';

/**
 * Entry point: loadConfig, then either this process serves (WORKERS=1, or a worker of the cluster), or it is the
 * primary of WORKERS workers on one port (src/cluster.ts), which migrates once and forks them.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
    // loadConfig reads the environment alone: what BACKUP_DIR names on disk is checked here, once, so that a folder
    // no backup can be written into is refused as a bad setting is, not failed every minute by the schedule.
    const backupDir = config.backupSchedule && backupDirProblem(config.backupSchedule.dir);
    if (backupDir) throw new ConfigError([`BACKUP_DIR: ${backupDir}: no scheduled backup could be written`]);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`svc: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // The bench's A/B switch (src/speed/switches.ts): pieces of speed machinery turned off, read once, before anything
  // is opened or built. Not configuration: an operator never sets it.
  turnOff(process.env.SVC_SPEED_OFF);
  if (cluster.isPrimary && config.workers > 1) {
    await runPrimary(config, async () => {
      const db = openDatabase(config.database, { poolSize: 1 });
      try {
        await migrateToLatest(db);
      } finally {
        await db.close();
      }
    });
    return;
  }
  await serve(config);
}

/** openDatabase → migrate (unless the primary did) → buildApp → listen; drains on SIGTERM/SIGINT. */
async function serve(config: Config): Promise<void> {
  const worker = cluster.isWorker;
  let draining = false;
  const db = openDatabase(config.database, { poolSize: config.databasePoolSize });
  if (!worker) await migrateToLatest(db);
  const app = await buildApp(config, {
    db,
    // Without Redis (config.redisUrl) the workers of one machine still share one budget per client: the primary counts.
    rateLimitStore: worker ? primaryRateLimitStore : undefined,
    metricsScope: worker ? clusterMetrics : undefined,
    draining: () => draining,
  });
  // Background work runs in one worker per machine: every copy would be safe (expired rows are deleted by
  // idempotent statements, statistics refreshes skip a table another node is vacuuming, webhook deliveries are
  // claimed under leases), but N copies would poll the database N times and hold N more connections.
  const background = !worker || workerSlot() === 0;
  const receipts = receiptsService({
    store: receiptStore(config.receipts.dir),
    maxBytes: config.receipts.maxBytes,
    perRecord: config.receipts.perRecord,
  });
  if (background) {
    // Before listening, and alone (one process): no upload is under way, so every file no row names is an upload
    // killed before it committed. With other workers serving, only old ones are. (PostgreSQL's bytes: every row
    // no receipt names, at any time: its sweep and the uploads lock each other out, postgres-store.repository.ts.)
    const removed = await receipts.sweep(db, config.workers > 1 ? RECEIPT_GRACE_MS : 0);
    if (removed > 0) app.log.info({ receipt_files: removed }, 'orphaned receipt files removed');
  }
  const maintenance = background
    ? startMaintenance(db, app.log, config.sessionIdleMinutes * 60_000_000, (grace) => receipts.sweep(db, grace))
    : { stop: () => {} };
  // Webhook delivery has its own connections on PostgreSQL, so that it never takes the requests' (SQLite: one
  // connection per process, whose write lock it shares with them).
  const deliveryDb =
    background && config.database.dialect === 'postgres'
      ? openDatabase(config.database, { poolSize: config.webhookPoolSize })
      : db;
  const dispatcher = background
    ? createDispatcher({
        db: deliveryDb,
        allowPrivateTargets: config.webhookAllowPrivateTargets,
        allowLoopbackTargets: config.webhookAllowLoopbackTargets,
        log: app.log,
        concurrency: config.webhookConcurrency.total,
        accountConcurrency: config.webhookConcurrency.perAccount,
        endpointConcurrency: config.webhookConcurrency.perEndpoint,
        takeoverAfter: config.webhookTakeoverSeconds * 1_000_000,
        lease: config.webhookLeaseSeconds * 1_000_000,
        idleMs: config.webhookPollSeconds * 1000,
      })
    : null;
  dispatcher?.start();
  const woken = dispatcher ? wakeOnEvents(dispatcher, deliveryDb) : null;
  // SQLite's other workers tell worker 0's dispatcher of their events through the primary.
  let relayed = () => {};
  if (worker && config.database.dialect === 'sqlite')
    relayed = dispatcher ? hearRelayedEvents(() => dispatcher.wake()) : relayEventsToPrimary(eventsBell.listen);
  const backups =
    background && config.backupSchedule
      ? startBackupSchedule(
          { ...config.database, receiptsDir: config.receipts.dir },
          config.backupSchedule,
          app.log,
          packageVersion(),
        )
      : { stop: async () => {} };

  // close-with-grace: SIGTERM and SIGINT (and an uncaught failure) run the drain once (a second signal meanwhile is
  // ignored, as the drain is already under way); a drain that outlasts the longest request by 15 s is cut, exit 1.
  closeWithGrace({ delay: config.requestTimeoutMs + 15_000, onSecondSignal: () => {} }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'failing: draining, then exiting');
    else app.log.info({ signal }, 'draining in-flight requests, then exiting');
    maintenance.stop();
    await backups.stop();
    // Not ready any more (/readyz 503), but still serving: a load balancer takes the node out of rotation at its
    // next checks, and requests it sends meanwhile are answered. Once none has come for a second (at most 5 s),
    // the listener closes and the requests in flight finish (deploy/haproxy.cfg, docs/operations.md).
    draining = true;
    await untilQuiet(app.server, 1000, 5000);
    // Deliveries under way finish (or time out) before the database closes; an unfinished one is attempted again
    // when its lease runs out.
    relayed();
    await woken?.close();
    await dispatcher?.stop();
    if (deliveryDb !== db) await deliveryDb.close();
    await app.close();
    await db.close();
  });

  const address = await app.listen({ host: config.host, port: config.port });
  app.log.info({ address, database: config.database.dialect, docs: `${address}/docs` }, 'svc is listening');
}

/** Resolves once `server` has received no request for `quietMs`, or after `maxMs`. */
async function untilQuiet(server: Server, quietMs: number, maxMs: number): Promise<void> {
  let last = Date.now();
  const seen = () => (last = Date.now());
  server.on('request', seen);
  const deadline = last + maxMs;
  while (Date.now() < deadline && Date.now() - last < quietMs) await sleep(50);
  server.off('request', seen);
}

main().catch((error: unknown) => {
  process.stderr.write(`svc: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
