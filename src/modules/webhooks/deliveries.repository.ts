import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import type { WebhookAttemptsTable, WebhookEndpointsTable } from './webhooks.tables.js';

/** A claimed delivery with what its attempt needs: the endpoint's target and secrets, the event. */
export interface DueDelivery {
  account_id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  retry_from: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  type: string;
  occurred_at: number;
  data_json: string;
}

/** Enabled endpoints behind their account's events (PostgreSQL: skipping those another process fans out now). */
const behind: ByDialect<(ex: Executor, limit: number) => Promise<WebhookEndpointsTable[]>> = {
  sqlite: (ex, limit) => behindQuery(ex, limit).execute(),
  postgres: (ex, limit) => behindQuery(ex, limit).forUpdate('e').skipLocked().execute(),
};

function behindQuery(ex: Executor, limit: number) {
  return ex
    .selectFrom('webhook_endpoints as e')
    .innerJoin('account_event_counters as c', 'c.account_id', 'e.account_id')
    .selectAll('e')
    .where('e.status', '=', 'ENABLED')
    .whereRef('c.last_seq', '>', 'e.fanned_seq')
    .limit(limit);
}

/** Due deliveries of enabled endpoints, oldest due first (PostgreSQL: skipping rows another process claims now). */
const due: ByDialect<(ex: Executor, now: number, limit: number) => Promise<DueDelivery[]>> = {
  sqlite: (ex, now, limit) => dueQuery(ex, now, limit).execute(),
  postgres: (ex, now, limit) => dueQuery(ex, now, limit).forUpdate('d').skipLocked().execute(),
};

function dueQuery(ex: Executor, now: number, limit: number) {
  return ex
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', (j) =>
      j.onRef('e.account_id', '=', 'd.account_id').onRef('e.endpoint_id', '=', 'd.endpoint_id'),
    )
    .innerJoin('account_events as v', (j) =>
      j.onRef('v.account_id', '=', 'd.account_id').onRef('v.event_id', '=', 'd.event_id'),
    )
    .select([
      'd.account_id',
      'd.delivery_id',
      'd.endpoint_id',
      'd.event_id',
      'd.attempts',
      'd.retry_from',
      'e.url',
      'e.secret',
      'e.previous_secret',
      'e.previous_secret_expires_at',
      'v.type',
      'v.occurred_at',
      'v.data_json',
    ])
    .where('d.status', '=', 'PENDING')
    .where('d.next_attempt_at', '<=', now)
    .where('e.status', '=', 'ENABLED')
    .orderBy('d.next_attempt_at')
    .limit(limit);
}

/** The dispatcher's statements (webhooks.dispatcher.ts). */
export const deliveriesRepository = {
  /**
   * Whether a round has anything to do: an enabled endpoint behind its account's events, or a due delivery. Plain
   * reads, outside any transaction: an idle dispatcher takes no write lock (on SQLite one writer at a time, and
   * a file locked by another process would hold the API's writes behind the dispatcher's wait).
   */
  async hasWork(ex: Executor, now: number): Promise<{ behind: boolean; due: boolean }> {
    const behindRow = await behindQuery(ex, 1).executeTakeFirst();
    const dueRow = await dueQuery(ex, now, 1).executeTakeFirst();
    return { behind: behindRow !== undefined, due: dueRow !== undefined };
  },

  behind: (ex: Executor, limit: number) => behind[ex.dialect](ex, limit),

  async eventsAfter(ex: Executor, accountId: string, afterSeq: number, limit: number) {
    return ex
      .selectFrom('account_events')
      .select(['seq', 'event_id', 'type'])
      .where('account_id', '=', accountId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
  },

  async setFanned(ex: Executor, accountId: string, endpointId: string, seq: number): Promise<void> {
    await ex
      .updateTable('webhook_endpoints')
      .set({ fanned_seq: seq })
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .execute();
  },

  /**
   * Claims up to `limit` due deliveries for `token`: each is due again only when the lease runs out (`leaseEnd`),
   * so a process that dies mid-attempt delays it, and loses nothing.
   */
  async claim(ex: Executor, now: number, limit: number, leaseEnd: number, token: string): Promise<DueDelivery[]> {
    const rows = await due[ex.dialect](ex, now, limit);
    for (const row of rows) {
      await ex
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: leaseEnd, lease_token: token, updated_at: now })
        .where('account_id', '=', row.account_id)
        .where('delivery_id', '=', row.delivery_id)
        .execute();
    }
    return rows;
  },

  async insertAttempt(ex: Executor, row: WebhookAttemptsTable): Promise<void> {
    await ex.insertInto('webhook_attempts').values(row).execute();
  },

  /** The attempt's outcome, written only while the claim is still this process's; false when it is not. */
  async settle(
    ex: Executor,
    d: { account_id: string; delivery_id: string },
    token: string,
    outcome: { status: 'PENDING' | 'DELIVERED' | 'FAILED'; attempts: number; nextAttemptAt: number; now: number },
  ): Promise<boolean> {
    const result = await ex
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status,
        attempts: outcome.attempts,
        next_attempt_at: outcome.nextAttemptAt,
        lease_token: null,
        updated_at: outcome.now,
      })
      .where('account_id', '=', d.account_id)
      .where('delivery_id', '=', d.delivery_id)
      .where('lease_token', '=', token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async endpointFailing(ex: Executor, accountId: string, endpointId: string) {
    return ex
      .selectFrom('webhook_endpoints')
      .select(['status', 'failing_since'])
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
  },

  async setEndpoint(
    ex: Executor,
    accountId: string,
    endpointId: string,
    changes: Partial<
      Pick<WebhookEndpointsTable, 'failing_since' | 'status' | 'disabled_at' | 'disabled_reason' | 'updated_at'>
    >,
  ): Promise<void> {
    await ex
      .updateTable('webhook_endpoints')
      .set(changes)
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .execute();
  },

  /**
   * Moves the account's waiting schedules `micros` earlier, as if that much time had passed: unclaimed PENDING
   * deliveries (their next attempt and the start of their retry window) and failing endpoints (since when). A
   * claimed delivery keeps its lease. Answers how many deliveries and endpoints moved.
   */
  async shiftSchedules(
    ex: Executor,
    accountId: string,
    micros: number,
  ): Promise<{ deliveries: number; endpoints: number }> {
    const deliveries = await ex
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        next_attempt_at: eb('next_attempt_at', '-', micros),
        retry_from: eb('retry_from', '-', micros),
      }))
      .where('account_id', '=', accountId)
      .where('status', '=', 'PENDING')
      .where('lease_token', 'is', null)
      .executeTakeFirst();
    const endpoints = await ex
      .updateTable('webhook_endpoints')
      .set((eb) => ({ failing_since: eb('failing_since', '-', micros) }))
      .where('account_id', '=', accountId)
      .where('failing_since', 'is not', null)
      .executeTakeFirst();
    return { deliveries: Number(deliveries.numUpdatedRows), endpoints: Number(endpoints.numUpdatedRows) };
  },

  /** Retention: attempts and settled deliveries older than `before`; answers how many rows went. */
  async sweep(ex: Executor, before: number): Promise<number> {
    const attempts = await ex.deleteFrom('webhook_attempts').where('attempted_at', '<', before).executeTakeFirst();
    const deliveries = await ex
      .deleteFrom('webhook_deliveries')
      .where('updated_at', '<', before)
      .where(sql<boolean>`status <> 'PENDING'`)
      .executeTakeFirst();
    return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows);
  },
};
