import { sql, type ExpressionBuilder } from 'kysely';
import type { ByDialect, Database, Executor } from '../../db/database.js';
import { hints } from '../../speed/hints.js';
import { pgNamed } from '../../speed/postgres-named.js';
import { claimOnPostgres } from './postgres-claim.repository.js';
import { claimOnSqlite, dueSelect } from './sqlite-claim.repository.js';
import type { Claim, DueDelivery, EndpointKey } from './deliveries.types.js';
import type { WebhookEndpointsTable } from './webhooks.tables.js';

export type { DueDelivery, EndpointKey } from './deliveries.types.js';

/**
 * Enabled endpoints behind their account's events, in key order from just after `after` (PostgreSQL: skipping those
 * another process fans out now). FOR NO KEY UPDATE, not FOR UPDATE: the key-share locks that the foreign keys of an
 * attempt's outcome take on its endpoint (beside the fan-out, attempts run all the time) must not make fan-out skip
 * a busy endpoint.
 */
const behind: ByDialect<(ex: Executor, after: EndpointKey | null, limit: number) => Promise<WebhookEndpointsTable[]>> =
  {
    sqlite: (ex, after, limit) => behindQuery(ex, after, limit).execute(),
    postgres: (ex, after, limit) => behindQuery(ex, after, limit).forNoKeyUpdate('e').skipLocked().execute(),
  };

function behindQuery(ex: Executor, after: EndpointKey | null, limit: number) {
  let query = ex
    .selectFrom('webhook_endpoints as e')
    .innerJoin('account_event_counters as c', 'c.account_id', 'e.account_id')
    .selectAll('e')
    .where('e.status', '=', 'ENABLED')
    .whereRef('c.last_seq', '>', 'e.fanned_seq');
  if (after) {
    query = query.where((eb) =>
      eb(eb.refTuple('e.account_id', 'e.endpoint_id'), '>', eb.tuple(after.account_id, after.endpoint_id)),
    );
  }
  return query.orderBy('e.account_id').orderBy('e.endpoint_id').limit(limit);
}

/**
 * Claims up to `limit` of one endpoint's due deliveries, oldest due first: each leased to `claim` until `leaseEnd`
 * (sqlite-claim.repository.ts, postgres-claim.repository.ts).
 */
const claimOf: ByDialect<Claim> = { sqlite: claimOnSqlite, postgres: claimOnPostgres };

/** An enabled endpoint with deliveries due, and how many (counted up to the number asked for). */
export interface DueEndpoint extends EndpointKey {
  due: number;
}

/** A delivery's endpoint is disabled (the takeover and the retention sweep treat its waiting deliveries apart). */
export const ofDisabledEndpoint = ({ exists, selectFrom }: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
  exists(
    selectFrom('webhook_endpoints as e')
      .select('e.endpoint_id')
      .whereRef('e.account_id', '=', 'webhook_deliveries.account_id')
      .whereRef('e.endpoint_id', '=', 'webhook_deliveries.endpoint_id')
      .where('e.status', '=', 'DISABLED'),
  );

/** Due deliveries of enabled endpoints, oldest due first. */
const dueQuery = (ex: Executor, now: number, limit: number) =>
  dueSelect(ex).where('d.next_attempt_at', '<=', now).orderBy('d.next_attempt_at').limit(limit);

/** The dispatcher's statements (webhooks.dispatcher.ts). */
export const deliveriesRepository = {
  /**
   * Whether a round has anything to do: an enabled endpoint behind its account's events, or a due delivery. Plain
   * reads, outside any transaction: an idle dispatcher takes no write lock (on SQLite one writer at a time, and
   * a file locked by another process would hold the API's writes behind the dispatcher's wait).
   */
  async hasWork(ex: Executor, now: number): Promise<{ behind: boolean; due: boolean }> {
    const behindRow = await behindQuery(ex, null, 1).executeTakeFirst();
    const dueRow = await dueQuery(ex, now, 1).executeTakeFirst();
    return { behind: behindRow !== undefined, due: dueRow !== undefined };
  },

  /**
   * Up to `limit` enabled endpoints behind their account's events, taking turns: those after `after` in key order
   * first, then from the start.
   */
  async behind(ex: Executor, after: EndpointKey | null, limit: number): Promise<WebhookEndpointsTable[]> {
    const rows = await behind[ex.dialect](ex, after, limit);
    if (after === null || rows.length === limit) return rows;
    const seen = new Set(rows.map((r) => `${r.account_id}\0${r.endpoint_id}`));
    const wrapped = await behind[ex.dialect](ex, null, limit - rows.length);
    return [...rows, ...wrapped.filter((r) => !seen.has(`${r.account_id}\0${r.endpoint_id}`))];
  },

  /**
   * Every enabled endpoint with a due delivery, in key order, each with how many are due (up to `upTo`); in a
   * transaction (claims read it there). A skip
   * scan over the waiting deliveries' index by endpoint (migration 0014): a few probes per endpoint that has
   * waiting deliveries, however many wait, so that a backlog costs its own endpoint's probes and nothing more.
   * Run in every attempt's outcome, and planning it costs more than running it: named on PostgreSQL (`pgNamed`).
   * PostgreSQL's estimates of a recursive query are large and its run is short: JIT off for it (`hints.noJit`).
   * `counted` is materialized: inlined, both dialects evaluated each endpoint's count twice (once more for `due > 0`).
   */
  async dueEndpoints(ex: Executor, now: number, upTo: number): Promise<DueEndpoint[]> {
    await hints.noJit(ex);
    const { rows } = await sql<DueEndpoint>`
      with recursive
      waiting_accounts(account_id) as (
        select (select account_id from webhook_deliveries where status = 'PENDING' order by account_id limit 1)
        union all
        select
          (select d.account_id from webhook_deliveries d
            where d.status = 'PENDING' and d.account_id > a.account_id order by d.account_id limit 1)
        from waiting_accounts a
        where a.account_id is not null
      ),
      waiting(account_id, endpoint_id) as (
        select
          a.account_id,
          (select d.endpoint_id from webhook_deliveries d
            where d.status = 'PENDING' and d.account_id = a.account_id order by d.endpoint_id limit 1)
        from waiting_accounts a
        where a.account_id is not null
        union all
        select
          w.account_id,
          (select d.endpoint_id from webhook_deliveries d
            where d.status = 'PENDING' and d.account_id = w.account_id and d.endpoint_id > w.endpoint_id
            order by d.endpoint_id limit 1)
        from waiting w
        where w.endpoint_id is not null
      ),
      counted as materialized (
        select w.account_id, w.endpoint_id,
          (select count(*) from (
            select 1 from webhook_deliveries d
            where d.account_id = w.account_id and d.endpoint_id = w.endpoint_id
              and d.status = 'PENDING' and d.next_attempt_at <= ${now}
            limit ${upTo}
          ) as due_rows) as due
        from waiting w
        ${hints.joinInWrittenOrder} webhook_endpoints e -- the waiting endpoints drive the join (few)
        where e.account_id = w.account_id and e.endpoint_id = w.endpoint_id
          and w.endpoint_id is not null and e.status = 'ENABLED'
      )
      select account_id, endpoint_id, due from counted where due > 0 order by account_id, endpoint_id${pgNamed}`.execute(
      ex,
    );
    return rows.map((r) => ({ ...r, due: Number(r.due) }));
  },

  /**
   * Claims up to `limit` of the endpoint's due deliveries, oldest due first, for `claim.token` of the dispatcher
   * `claim.by`: each is due again when the lease runs out (`leaseEnd`), or sooner when that dispatcher is found dead
   * (webhooks.liveness.ts), so a process that dies mid-attempt delays it by seconds, and loses nothing.
   */
  claim(...args: Parameters<Claim>): Promise<DueDelivery[]> {
    return claimOf[args[0].dialect](...args);
  },

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

  /**
   * Retention: attempts and settled or waiting deliveries older than `before` (PAUSED, and PENDING ones no attempt
   * holds of a disabled endpoint: a retry whose outcome raced the disabling waits as PENDING); answers how many
   * rows went.
   */
  async sweep(ex: Executor, before: number): Promise<number> {
    const attempts = await ex.deleteFrom('webhook_attempts').where('attempted_at', '<', before).executeTakeFirst();
    const deliveries = await ex
      .deleteFrom('webhook_deliveries')
      .where('updated_at', '<', before)
      .where(sql<boolean>`status <> 'PENDING'`)
      .executeTakeFirst();
    const waiting = await ex
      .deleteFrom('webhook_deliveries')
      .where('updated_at', '<', before)
      .where('status', '=', 'PENDING')
      .where('lease_token', 'is', null)
      .where(ofDisabledEndpoint)
      .executeTakeFirst();
    return Number(attempts.numDeletedRows) + Number(deliveries.numDeletedRows) + Number(waiting.numDeletedRows);
  },
};
