import type { Executor } from '../../db/database.js';
import { newId } from '../../lib/ids.js';
import { webhooksRepository } from './webhooks.repository.js';
import type { WebhookDeliveriesTable } from './webhooks.tables.js';

/**
 * The one place deliveries are made: for events an endpoint takes, due at `at`, PENDING (or PAUSED while the
 * endpoint is disabled). The fan-out makes them for new events (an existing one is left alone); a redelivery makes
 * them again for old ones (an existing one is due again, its attempts counted afresh).
 */
export async function makeDeliveries(
  ex: Executor,
  endpoint: { account_id: string; endpoint_id: string; status: 'ENABLED' | 'DISABLED' },
  eventIds: readonly string[],
  at: number,
  existing: 'keep' | 'due-again',
): Promise<number> {
  const rows: WebhookDeliveriesTable[] = eventIds.map((eventId) => ({
    account_id: endpoint.account_id,
    delivery_id: newId('whd'),
    endpoint_id: endpoint.endpoint_id,
    event_id: eventId,
    status: endpoint.status === 'ENABLED' ? 'PENDING' : 'PAUSED',
    attempts: 0,
    next_attempt_at: at,
    retry_from: at,
    lease_token: null,
    claimed_by: null,
    created_at: at,
    updated_at: at,
  }));
  await webhooksRepository.putDeliveries(ex, rows, existing);
  return rows.length;
}
