import type { Executor } from '../../db/database.js';
import type { WebhookAttemptsTable, WebhookEndpointsTable } from './webhooks.tables.js';

/** An attempt's outcome (webhooks.attempt.ts): its log row, its delivery's next state, its endpoint's health. */
export const attemptsRepository = {
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
        claimed_by: null,
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
};
