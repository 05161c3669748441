import { sql, type Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * Claims held by a process that died are taken over within seconds, not when their 60 s lease runs out
 * (docs/webhooks.md, "Many processes"; issue 36):
 * - webhook_dispatchers: one row per dispatching process, its heartbeat (`beats` grows at every beat; `beat_at` is
 *   the beater's clock, for people). A process whose beats stop moving is judged dead by the others.
 * - webhook_deliveries.claimed_by: the process whose claim `lease_token` is, so that a dead process's claims are
 *   found and released together (a partial index: only claimed deliveries are in it, at most a few per process).
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_dispatchers')
    .addColumn('dispatcher_id', keyText(db), (c) => c.primaryKey())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('beat_at', 'bigint', (c) => c.notNull())
    .addColumn('beats', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_by', 'text').execute();
  await sql`create index webhook_deliveries_claimed_by_idx
    on webhook_deliveries (claimed_by) where claimed_by is not null`.execute(db);
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['webhook_deliveries'],
  note: "Creates the dispatchers' heartbeats, adds a nullable column to webhook deliveries and indexes it: the build holds back the writes that queue deliveries while the delivery log is indexed.",
};
