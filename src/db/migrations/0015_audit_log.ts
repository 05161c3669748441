import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * The audit log of administrative actions (docs/security.md): one row per action on users, roles and sign-in
 * settings, API clients and their secrets, webhook endpoints, integrations, connected apps and account settings,
 * written in the transaction of the action itself, never changed or deleted by the service. `details` is JSON text
 * (what was done; never a secret). Listed newest first per account: the index is (account_id, occurred_at, event_id).
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  await db.schema
    .createTable('audit_events')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('event_id', key, (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', key, (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', key, (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('request_id', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_events_pk', ['account_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('audit_events_time_idx')
    .on('audit_events')
    .columns(['account_id', 'occurred_at', 'event_id'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the audit log's table; nothing existing is touched.",
};
