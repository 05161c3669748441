import { createHash } from 'node:crypto';
import { sql, type Updateable } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.tables.js';

/** 11 columns × 500 rows: far below both dialects' bound-parameter limits. */
const INSERT_CHUNK = 500;

/** The account's endpoint list as one number of PostgreSQL's advisory lock space (64 bits of a SHA-256). */
function endpointsLockNumber(accountId: string): string {
  return createHash('sha256').update(`webhook_endpoints\0${accountId}`).digest().readBigInt64BE(0).toString();
}

const lockEndpoints: ByDialect<(ex: Executor, accountId: string) => Promise<void>> = {
  // Held to the end of the transaction: two creates of one account count one after the other.
  postgres: async (ex, accountId) => {
    await sql`select pg_advisory_xact_lock(${endpointsLockNumber(accountId)}::bigint)`.execute(ex);
  },
  // One write transaction at a time (BEGIN IMMEDIATE): the transaction is the lock.
  sqlite: async () => {},
};

/** Endpoints, and what the API reads and changes of their deliveries and attempts. */
export const webhooksRepository = {
  /** Until the transaction ends, no other transaction of this account passes here (a create's count and insert). */
  lockEndpoints: (ex: Executor, accountId: string) => lockEndpoints[ex.dialect](ex, accountId),

  async count(ex: Executor, accountId: string): Promise<number> {
    const row = await ex
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  async insert(ex: Executor, row: WebhookEndpointsTable): Promise<void> {
    await ex.insertInto('webhook_endpoints').values(row).execute();
  },

  async find(ex: Executor, accountId: string, endpointId: string): Promise<WebhookEndpointsTable | undefined> {
    return ex
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
  },

  /** The account's endpoints in creation order (ids sort by creation), after `afterId`; fetches limit + 1. */
  async list(ex: Executor, accountId: string, afterId: string | undefined, limit: number) {
    let query = ex.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId);
    if (afterId !== undefined) query = query.where('endpoint_id', '>', afterId);
    return query
      .orderBy('endpoint_id')
      .limit(limit + 1)
      .execute();
  },

  async update(
    ex: Executor,
    accountId: string,
    endpointId: string,
    changes: Updateable<WebhookEndpointsTable>,
  ): Promise<WebhookEndpointsTable | undefined> {
    return ex
      .updateTable('webhook_endpoints')
      .set(changes)
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .returningAll()
      .executeTakeFirst();
  },

  /** Deletes the endpoint, its deliveries and its log (foreign keys cascade); false when it was not there. */
  async delete(ex: Executor, accountId: string, endpointId: string): Promise<boolean> {
    const result = await ex
      .deleteFrom('webhook_endpoints')
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },

  /**
   * An enabled endpoint's waiting deliveries due at `now`: those paused, and any left PENDING while it was disabled
   * (a retry whose outcome raced the disabling); none an attempt holds.
   */
  async resume(ex: Executor, accountId: string, endpointId: string, now: number): Promise<void> {
    await ex
      .updateTable('webhook_deliveries')
      .set({ status: 'PENDING', next_attempt_at: now, updated_at: now })
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .where('status', 'in', ['PAUSED', 'PENDING'])
      .where('lease_token', 'is', null)
      .execute();
  },

  /**
   * Disabling: the endpoint's waiting deliveries pause. A delivery whose attempt is under way (claimed) is left to
   * it: its outcome is written under its claim, and a retry then waits for the endpoint (webhooks.attempt.ts), so a
   * delivery that succeeded meanwhile is not sent again.
   */
  async pauseWaiting(ex: Executor, accountId: string, endpointId: string, now: number): Promise<void> {
    await ex
      .updateTable('webhook_deliveries')
      .set({ status: 'PAUSED', next_attempt_at: now, updated_at: now })
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'PENDING')
      .where('lease_token', 'is', null)
      .execute();
  },

  /**
   * Deliveries of events to endpoints (the one writer of delivery rows: webhooks.deliveries.ts makes them). A
   * delivery an endpoint already has for its event is left alone (`existing: 'keep'`: the fan-out, which may meet an
   * event twice) or made due again from now (`'due-again'`: a redelivery).
   */
  async putDeliveries(
    ex: Executor,
    rows: readonly WebhookDeliveriesTable[],
    existing: 'keep' | 'due-again',
  ): Promise<void> {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await ex
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => {
          const key = oc.columns(['account_id', 'endpoint_id', 'event_id']);
          return existing === 'keep'
            ? key.doNothing()
            : key.doUpdateSet((eb) => ({
                status: eb.ref('excluded.status'),
                attempts: 0,
                next_attempt_at: eb.ref('excluded.next_attempt_at'),
                retry_from: eb.ref('excluded.retry_from'),
                lease_token: null,
                claimed_by: null,
                updated_at: eb.ref('excluded.updated_at'),
              }));
        })
        .execute();
    }
  },

  /**
   * The endpoint's attempts with their event's type, newest first, of one event, of one type or all, before
   * `beforeId`; fetches limit + 1.
   */
  async attempts(
    ex: Executor,
    accountId: string,
    endpointId: string,
    filter: { eventId?: string; eventType?: string; beforeId?: string; limit: number },
  ): Promise<(WebhookAttemptsTable & { event_type: string | null })[]> {
    let query = ex
      .selectFrom('webhook_attempts as a')
      .leftJoin('account_events as e', (join) =>
        join.onRef('e.account_id', '=', 'a.account_id').onRef('e.event_id', '=', 'a.event_id'),
      )
      .selectAll('a')
      .select('e.type as event_type')
      .where('a.account_id', '=', accountId)
      .where('a.endpoint_id', '=', endpointId);
    if (filter.eventId !== undefined) query = query.where('a.event_id', '=', filter.eventId);
    if (filter.eventType !== undefined) query = query.where('e.type', '=', filter.eventType);
    if (filter.beforeId !== undefined) query = query.where('a.attempt_id', '<', filter.beforeId);
    return query
      .orderBy('a.attempt_id', 'desc')
      .limit(filter.limit + 1)
      .execute();
  },
};
