import { sql } from 'kysely';
import { pgNamed } from '../../speed/postgres-named.js';
import type { Claim, DueDelivery } from './deliveries.types.js';

/**
 * PostgreSQL's claim of one endpoint's due deliveries (deliveriesRepository.claim): one statement, one round trip
 * however many are claimed (each was a round trip of its own, in the transaction of an attempt's outcome). The due
 * rows are locked, skipping those another process claims now, and leased by a data-modifying CTE; answered with
 * their endpoint and event, in the order they were due. Named on each connection (`pgNamed`). `due` is
 * materialized: inlined (PostgreSQL folds a CTE used once), a plan that ran it again could lock and lease more rows
 * than `limit` (SKIP LOCKED skips what its first run locked).
 */
export const claimOnPostgres: Claim = async (ex, endpoint, now, limit, leaseEnd, claim) => {
  const { rows } = await sql<DueDelivery & { due_at: number }>`
    with due as materialized (
      select d.account_id, d.delivery_id, d.next_attempt_at
      from webhook_deliveries d
      join webhook_endpoints e on e.account_id = d.account_id and e.endpoint_id = d.endpoint_id
      join account_events v on v.account_id = d.account_id and v.event_id = d.event_id
      where d.status = 'PENDING' and d.next_attempt_at <= ${now} and e.status = 'ENABLED'
        and d.account_id = ${endpoint.account_id} and d.endpoint_id = ${endpoint.endpoint_id}
      order by d.next_attempt_at
      limit ${limit}
      for update of d skip locked
    ),
    leased as (
      update webhook_deliveries w
      set next_attempt_at = ${leaseEnd}, lease_token = ${claim.token}, claimed_by = ${claim.by},
          updated_at = ${now}
      from due
      where w.account_id = due.account_id and w.delivery_id = due.delivery_id
      returning w.account_id, w.delivery_id, w.endpoint_id, w.event_id, w.attempts, w.retry_from,
        due.next_attempt_at as due_at
    )
    select l.account_id, l.delivery_id, l.endpoint_id, l.event_id, l.attempts, l.retry_from, l.due_at,
      e.url, e.secret, e.previous_secret, e.previous_secret_expires_at, v.type, v.occurred_at, v.data_json
    from leased l
    join webhook_endpoints e on e.account_id = l.account_id and e.endpoint_id = l.endpoint_id
    join account_events v on v.account_id = l.account_id and v.event_id = l.event_id
    order by l.due_at, l.delivery_id${pgNamed}`.execute(ex);
  return rows.map(({ due_at: _dueAt, ...row }) => row);
};
