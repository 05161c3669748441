import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/open.js';

/** The OpenAPI document the server serves at /openapi.json, built without listening or touching disk. */
export async function openapiDocument(): Promise<Record<string, unknown>> {
  const db = openDatabase({ dialect: 'sqlite', path: ':memory:' });
  const app = await buildApp(loadConfig({}), { db, logger: false });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await db.close();
  }
}
