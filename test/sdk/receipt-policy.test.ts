import { expect, it } from 'vitest';
import {
  SvcApiError,
  SvcAuthError,
  SvcClient,
  SvcValidationError,
  type ReceiptPolicy,
  type ReceiptPolicyRequest,
  type RecordCreate,
} from '../../client/src/index.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { describeLive, type LiveServer } from './live-server.js';

const ALL: Scope[] = ['accounting.record.admin', 'accounting.record.review'];

async function clientOf(live: LiveServer, scopes: Scope[] = ALL, accountId?: string) {
  const { clientId, clientSecret, accountId: account } = await live.credentials(scopes, accountId);
  return { client: new SvcClient({ baseUrl: live.url, clientId, clientSecret, maxRetries: 0 }), accountId: account };
}

const card = (amount: number): RecordCreate => ({
  type: 'CARD_EXPENSE_POST',
  amount: { amount, currency: 'USD' },
  posted_at: '2026-06-11T09:09:05Z',
  review_status: 'REVIEW',
});

describeLive('SDK: receipt policy', (s) => {
  it('reads and sets the policy, typed; a record above the threshold without a receipt is refused READY_FOR_EXPORT', async () => {
    const { client, accountId } = await clientOf(s.live);
    const none: ReceiptPolicy = await client.review.receiptPolicy();
    expect(none).toEqual({ rules: [], updated_at: null });

    const body: ReceiptPolicyRequest = {
      rules: [{ currency: 'USD', above_minor: 7500, record_types: ['CARD_EXPENSE_POST'] }],
    };
    // One Idempotency-Key, one change: the retry answers the same policy.
    const set = await client.review.setReceiptPolicy(body, { idempotencyKey: 'policy-1' });
    expect(await client.review.setReceiptPolicy(body, { idempotencyKey: 'policy-1' })).toEqual(set);
    expect(set.rules).toEqual(body.rules);
    expect(await client.review.receiptPolicy()).toEqual(set);

    const { items } = await client.review.createRecords([card(75.01), card(75)]);
    const refused = await client.review
      .moveRecord(items[0]!.id, { review_status: 'READY_FOR_EXPORT' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcApiError);
    expect(refused).toMatchObject({
      status: 422,
      error_code: 'RECEIPT_REQUIRED',
      details: {
        accounting_record_id: items[0]!.id,
        record_type: 'CARD_EXPENSE_POST',
        currency: 'USD',
        amount_minor: 7501,
        above_minor: 7500,
      },
    });
    const moved = await client.review.moveRecord(items[1]!.id, { review_status: 'READY_FOR_EXPORT' });
    expect(moved.review_status).toBe('READY_FOR_EXPORT');

    // A bad rule is the SDK's validation error; a reviewer reads but may not change the policy.
    const bad = await client.review
      .setReceiptPolicy({ rules: [{ currency: 'XYZ', above_minor: 1, record_types: ['INVOICE'] }] })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(SvcValidationError);
    expect((bad as SvcValidationError).problems).toEqual([
      { path: '/rules/0/currency', message: 'must be an ISO 4217 currency code' },
    ]);
    const { client: reviewer } = await clientOf(s.live, ['accounting.record.review'], accountId);
    expect((await reviewer.review.receiptPolicy()).rules).toEqual(body.rules);
    const forbidden = await reviewer.review.setReceiptPolicy({ rules: [] }).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(SvcAuthError);
    expect((forbidden as SvcAuthError).status).toBe(403);
  });
});
