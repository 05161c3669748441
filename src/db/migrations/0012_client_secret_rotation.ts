import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * Secret rotation with an overlap (`svc clients rotate-secret`, docs/integration.md): an API client keeps the hash of
 * its previous secret and until when it still works, so that an integration can switch secrets without a moment
 * when neither works. Null when the client never rotated, or the overlap was zero.
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_clients').addColumn('previous_secret_hash', 'text').execute();
  await db.schema.alterTable('oauth_clients').addColumn('previous_secret_expires_at', 'bigint').execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: 'Adds two nullable columns to API clients (the previous secret of a rotation).',
};
