import { sql, type Kysely } from 'kysely';
import { allOrNothing, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * Each endpoint's waiting deliveries as a queue of its own (docs/webhooks.md, "Fair delivery"): the dispatcher
 * finds the endpoints with a due delivery by a skip scan over this index (one probe per endpoint that has waiting
 * deliveries, however many wait) and takes each endpoint's oldest due deliveries from it, so that one account's
 * backlog costs the dispatcher no more than another's single delivery.
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await sql`create index webhook_deliveries_endpoint_due_idx
    on webhook_deliveries (account_id, endpoint_id, next_attempt_at) where status = 'PENDING'`.execute(db);
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['webhook_deliveries'],
  note: 'Indexes webhook deliveries by endpoint and due time: the build holds back the writes that queue deliveries for as long as the delivery log takes to index.',
};
