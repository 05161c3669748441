import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import { pgNamed } from '../../speed/postgres-named.js';
import { preparedQuery } from '../../speed/prepared.js';
import type { WebhookAttemptsTable, WebhookEndpointsTable } from './webhooks.tables.js';

/** The next state of an attempted delivery. */
export interface DeliveryOutcome {
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  attempts: number;
  nextAttemptAt: number;
  now: number;
}

/** What an outcome's writing found: whether the claim was still this process's, and the endpoint's health. */
export interface OutcomeWritten {
  stillOurs: boolean;
  endpoint: Pick<WebhookEndpointsTable, 'status' | 'failing_since'> | undefined;
}

/** One attempt's outcome: its log row, its delivery (settled only under the claim's token), the delivery's next state. */
export interface OutcomeRow {
  attempt: WebhookAttemptsTable;
  delivery: { account_id: string; delivery_id: string };
  token: string;
  outcome: DeliveryOutcome;
}

/** SQLite's three statements of an outcome, each built and compiled once (piece `prepared`). */
const insertAttemptQuery = preparedQuery<{ [K in keyof WebhookAttemptsTable]: WebhookAttemptsTable[K] }>()((ex, p) =>
  ex.insertInto('webhook_attempts').values({
    account_id: p('account_id'),
    attempt_id: p('attempt_id'),
    endpoint_id: p('endpoint_id'),
    event_id: p('event_id'),
    attempted_at: p('attempted_at'),
    status_code: p('status_code'),
    latency_ms: p('latency_ms'),
    response_excerpt: p('response_excerpt'),
    error: p('error'),
    succeeded: p('succeeded'),
  }),
);

const settleQuery = preparedQuery<{
  accountId: string;
  deliveryId: string;
  token: string;
  status: DeliveryOutcome['status'];
  attempts: number;
  nextAttemptAt: number;
  now: number;
}>()((ex, p) =>
  ex
    .updateTable('webhook_deliveries')
    .set({
      status: p('status'),
      attempts: p('attempts'),
      next_attempt_at: p('nextAttemptAt'),
      lease_token: null,
      claimed_by: null,
      updated_at: p('now'),
    })
    .where('account_id', '=', p('accountId'))
    .where('delivery_id', '=', p('deliveryId'))
    .where('lease_token', '=', p('token')),
);

const endpointFailingQuery = preparedQuery<{ accountId: string; endpointId: string }>()((ex, p) =>
  ex
    .selectFrom('webhook_endpoints')
    .select(['status', 'failing_since'])
    .where('account_id', '=', p('accountId'))
    .where('endpoint_id', '=', p('endpointId')),
);

/**
 * SQLite: for each outcome, its three statements one after another (in process each is a call). PostgreSQL: one
 * statement for them all, the rows handed over as arrays (`unnest … with ordinality`, one text whatever their number,
 * so named once): the attempts logged and the deliveries still under their claim's token settled by data-modifying
 * CTEs, each endpoint's health read beside them (its row is not one they change, so the statement's snapshot reads it
 * as a statement after them would). The deliveries are distinct (each is claimed by one attempt).
 */
const writeOutcomesBy: ByDialect<(ex: Executor, rows: readonly OutcomeRow[]) => Promise<OutcomeWritten[]>> = {
  async sqlite(ex, rows) {
    const written: OutcomeWritten[] = [];
    for (const { attempt, delivery, token, outcome } of rows) {
      await attemptsRepository.insertAttempt(ex, attempt);
      const stillOurs = await attemptsRepository.settle(ex, delivery, token, outcome);
      const endpoint = stillOurs
        ? await attemptsRepository.endpointFailing(ex, delivery.account_id, attempt.endpoint_id)
        : undefined;
      written.push({ stillOurs, endpoint });
    }
    return written;
  },
  async postgres(ex, rows) {
    const column = <T>(of: (r: OutcomeRow) => T) => rows.map(of);
    const { rows: found } = await sql<{
      n: number;
      settled: boolean;
      status: WebhookEndpointsTable['status'] | null;
      failing_since: number | null;
    }>`
      with input as (
        select * from unnest(
          ${column((r) => r.attempt.account_id)}::text[], ${column((r) => r.attempt.attempt_id)}::text[],
          ${column((r) => r.attempt.endpoint_id)}::text[], ${column((r) => r.attempt.event_id)}::text[],
          ${column((r) => r.attempt.attempted_at)}::bigint[], ${column((r) => r.attempt.status_code)}::integer[],
          ${column((r) => r.attempt.latency_ms)}::integer[], ${column((r) => r.attempt.response_excerpt)}::text[],
          ${column((r) => r.attempt.error)}::text[], ${column((r) => r.attempt.succeeded)}::integer[],
          ${column((r) => r.delivery.delivery_id)}::text[], ${column((r) => r.token)}::text[],
          ${column((r) => r.outcome.status)}::text[], ${column((r) => r.outcome.attempts)}::integer[],
          ${column((r) => r.outcome.nextAttemptAt)}::bigint[], ${column((r) => r.outcome.now)}::bigint[]
        ) with ordinality as i(account_id, attempt_id, endpoint_id, event_id, attempted_at, status_code, latency_ms,
          response_excerpt, error, succeeded, delivery_id, token, status, attempts, next_attempt_at, updated_at, n)
      ),
      logged as (
        insert into webhook_attempts (account_id, attempt_id, endpoint_id, event_id, attempted_at, status_code,
          latency_ms, response_excerpt, error, succeeded)
        select account_id, attempt_id, endpoint_id, event_id, attempted_at, status_code, latency_ms, response_excerpt,
          error, succeeded
        from input
      ),
      settled as (
        update webhook_deliveries d
        set status = i.status, attempts = i.attempts, next_attempt_at = i.next_attempt_at, lease_token = null,
            claimed_by = null, updated_at = i.updated_at
        from input i
        where d.account_id = i.account_id and d.delivery_id = i.delivery_id and d.lease_token = i.token
        returning i.n
      )
      select i.n::int as n, (s.n is not null) as settled, e.status, e.failing_since
      from input i
      left join settled s on s.n = i.n
      left join webhook_endpoints e on e.account_id = i.account_id and e.endpoint_id = i.endpoint_id
      order by i.n${pgNamed}`.execute(ex);
    return found.map((row) => ({
      stillOurs: row.settled,
      endpoint:
        row.settled && row.status !== null ? { status: row.status, failing_since: row.failing_since } : undefined,
    }));
  },
};

/** An attempt's outcome (webhooks.attempt.ts): its log row, its delivery's next state, its endpoint's health. */
export const attemptsRepository = {
  /**
   * Attempts' outcomes (those that ended together, or one): for each, in order, whether its claim was still this
   * process's (its delivery then settled) and, when it was, its endpoint's health as it stands.
   */
  async writeOutcomes(ex: Executor, rows: readonly OutcomeRow[]): Promise<OutcomeWritten[]> {
    return writeOutcomesBy[ex.dialect](ex, rows);
  },

  /** A settled delivery due for a retry, waiting for its endpoint instead (disabled while it was attempted). */
  async pause(ex: Executor, d: { account_id: string; delivery_id: string }, now: number): Promise<void> {
    await ex
      .updateTable('webhook_deliveries')
      .set({ status: 'PAUSED', next_attempt_at: now, updated_at: now })
      .where('account_id', '=', d.account_id)
      .where('delivery_id', '=', d.delivery_id)
      .where('status', '=', 'PENDING')
      .where('lease_token', 'is', null)
      .execute();
  },

  async insertAttempt(ex: Executor, row: WebhookAttemptsTable): Promise<void> {
    await insertAttemptQuery(ex, row);
  },

  /** The attempt's outcome, written only while the claim is still this process's; false when it is not. */
  async settle(
    ex: Executor,
    d: { account_id: string; delivery_id: string },
    token: string,
    outcome: DeliveryOutcome,
  ): Promise<boolean> {
    const result = await settleQuery(ex, {
      accountId: d.account_id,
      deliveryId: d.delivery_id,
      token,
      status: outcome.status,
      attempts: outcome.attempts,
      nextAttemptAt: outcome.nextAttemptAt,
      now: outcome.now,
    });
    return Number(result.numAffectedRows ?? 0n) > 0;
  },

  async endpointFailing(
    ex: Executor,
    accountId: string,
    endpointId: string,
  ): Promise<Pick<WebhookEndpointsTable, 'status' | 'failing_since'> | undefined> {
    return (await endpointFailingQuery(ex, { accountId, endpointId })).rows[0];
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
};
