import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * An API client's name (what the admin calls it: "ERP nightly sync"; '' for the clients made before) and when it
 * last obtained an access token (`last_used_at`, microseconds; null: never since this migration). The last use is
 * written at token issuance, at most once a minute per client (auth.service.ts), never per request.
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('oauth_clients')
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('oauth_clients').addColumn('last_used_at', 'bigint').execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Adds an API client's name (a constant default: no rewrite on PostgreSQL 11 and later) and last use; the release before it writes clients without them.",
};
