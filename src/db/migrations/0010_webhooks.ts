import { sql, type Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * Account events and webhooks (docs/webhooks.md):
 * - account_events: the account's event feed and the webhooks' outbox, one row per event, written in the
 *   transaction of the change it announces. `seq` numbers an account's events in commit order: it is handed out
 *   by account_event_counters, whose row the writing transaction keeps locked until it commits.
 * - webhook_endpoints: where an account's events are delivered, with the signing secret (and the previous one
 *   while a rotation lasts) and `fanned_seq`, the last event the dispatcher has made deliveries of.
 * - webhook_deliveries: one event for one endpoint, with its retry state; `next_attempt_at` is also the lease (a
 *   claimed delivery is due again when its lease runs out, so a process that dies mid-delivery loses nothing).
 * - webhook_attempts: the delivery log, each attempt with its time, status, latency and an excerpt of the answer.
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('account_event_counters')
    .addColumn('account_id', key, (c) => c.primaryKey())
    .addColumn('last_seq', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('account_events')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('event_id', key, (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('data_json', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_events_pk', ['account_id', 'seq'])
    .addUniqueConstraint('account_events_id_key', ['account_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('account_events_occurred_idx')
    .on('account_events')
    .columns(['account_id', 'occurred_at'])
    .execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('endpoint_id', key, (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('event_types_json', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', 'bigint')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('fanned_seq', 'bigint', (c) => c.notNull())
    .addColumn('failing_since', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_endpoints_pk', ['account_id', 'endpoint_id'])
    .addForeignKeyConstraint('webhook_endpoints_account_fk', ['account_id'], 'accounts', ['account_id'])
    .addCheckConstraint('webhook_endpoints_status_check', sql`status in ('ENABLED', 'DISABLED')`)
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('delivery_id', key, (c) => c.notNull())
    .addColumn('endpoint_id', key, (c) => c.notNull())
    .addColumn('event_id', key, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('retry_from', 'bigint', (c) => c.notNull())
    .addColumn('lease_token', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_pk', ['account_id', 'delivery_id'])
    .addUniqueConstraint('webhook_deliveries_event_key', ['account_id', 'endpoint_id', 'event_id'])
    .addForeignKeyConstraint(
      'webhook_deliveries_endpoint_fk',
      ['account_id', 'endpoint_id'],
      'webhook_endpoints',
      ['account_id', 'endpoint_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .addCheckConstraint('webhook_deliveries_status_check', sql`status in ('PENDING', 'PAUSED', 'DELIVERED', 'FAILED')`)
    .execute();
  // The dispatcher's one question, across accounts: which deliveries are due.
  // The retention sweep's deletes (maintenance), by time.
  await sql`create index webhook_deliveries_settled_idx on webhook_deliveries (updated_at) where status <> 'PENDING'`.execute(
    db,
  );
  await sql`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status = 'PENDING'`.execute(
    db,
  );

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('attempt_id', key, (c) => c.notNull())
    .addColumn('endpoint_id', key, (c) => c.notNull())
    .addColumn('event_id', key, (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .addColumn('succeeded', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_attempts_pk', ['account_id', 'attempt_id'])
    .addForeignKeyConstraint(
      'webhook_attempts_endpoint_fk',
      ['account_id', 'endpoint_id'],
      'webhook_endpoints',
      ['account_id', 'endpoint_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('webhook_attempts_endpoint_idx')
    .on('webhook_attempts')
    .columns(['account_id', 'endpoint_id', 'attempt_id'])
    .execute();
  await db.schema
    .createIndex('webhook_attempts_event_idx')
    .on('webhook_attempts')
    .columns(['account_id', 'endpoint_id', 'event_id', 'attempt_id'])
    .execute();
  await db.schema.createIndex('webhook_attempts_time_idx').on('webhook_attempts').column('attempted_at').execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates account events and webhooks' tables; nothing existing is touched.",
};
