import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import { isRecord } from '../src/lib/guards.js';

/** The OpenAPI document the server serves at /openapi.json, built without listening or touching disk. */
export async function openapiDocument(): Promise<Record<string, unknown>> {
  const db = openDatabase({ dialect: 'sqlite', path: ':memory:' });
  // The app reads its session-signing key from the database as it is built.
  await migrateToLatest(db);
  const app = await buildApp(loadConfig({}), { db, logger: false });
  try {
    await app.ready();
    const document: unknown = app.swagger();
    if (!isRecord(document)) throw new Error('the app answered no OpenAPI document');
    return document;
  } finally {
    await app.close();
    await db.close();
  }
}
