import type { Executor } from '../../db/database.js';
import { preparedQuery } from '../../speed/prepared.js';
import type { Claim } from './deliveries.types.js';

/** The due deliveries of enabled endpoints with what an attempt needs: the endpoint's target and the event. */
export function dueSelect(ex: Executor) {
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
    .where('e.status', '=', 'ENABLED');
}

/** One endpoint's due deliveries, oldest due first (built and compiled once: piece `prepared`). */
const endpointDueQuery = preparedQuery<{ now: number; limit: number; accountId: string; endpointId: string }>()(
  (ex, p) =>
    dueSelect(ex)
      .where('d.next_attempt_at', '<=', p('now'))
      .where('d.account_id', '=', p('accountId'))
      .where('d.endpoint_id', '=', p('endpointId'))
      .orderBy('d.next_attempt_at')
      .limit(p('limit')),
);

/** A due delivery's lease. */
const leaseQuery = preparedQuery<{
  accountId: string;
  deliveryId: string;
  leaseEnd: number;
  token: string;
  by: string;
  now: number;
}>()((ex, p) =>
  ex
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: p('leaseEnd'), lease_token: p('token'), claimed_by: p('by'), updated_at: p('now') })
    .where('account_id', '=', p('accountId'))
    .where('delivery_id', '=', p('deliveryId')),
);

/**
 * SQLite's claim of one endpoint's due deliveries (deliveriesRepository.claim): the due rows read, then each one's
 * lease written, one compiled UPDATE run per row on the transaction's connection (`each`): in process a statement is
 * a call, and the write transaction holds the database, so nothing claims them in between.
 */
export const claimOnSqlite: Claim = async (ex, endpoint, now, limit, leaseEnd, claim) => {
  const { rows } = await endpointDueQuery(ex, {
    now,
    limit,
    accountId: endpoint.account_id,
    endpointId: endpoint.endpoint_id,
  });
  await leaseQuery.each(
    ex,
    rows.map((row) => ({
      accountId: row.account_id,
      deliveryId: row.delivery_id,
      leaseEnd,
      token: claim.token,
      by: claim.by,
      now,
    })),
  );
  return rows;
};
