import { expect, it } from 'vitest';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { POLICY } from './support/receipt-policy.js';
import { REVIEWER } from './support/review.js';

const AUDIT = '/internal/v1/audit-events';
const CALLER = [...REVIEWER, 'audit.read'] as const;

/** The stored policy row of the account, if any. */
const storedPolicy = ({ db }: TestContext, accountId: string) =>
  db.direct.selectFrom('account_receipt_policies').selectAll().where('account_id', '=', accountId).executeTakeFirst();

const usdRule = {
  currency: 'USD',
  above_minor: 7500,
  record_types: ['CARD_EXPENSE_POST', 'REIMBURSEMENT_EXPENSE_POST'],
};
const eurRule = { currency: 'EUR', above_minor: 0, record_types: ['BILL_EXPENSE'] };

describeEachDialect('receipt policy: the setting', (t) => {
  it('is empty until set; a PUT replaces the rules (by currency), kept and logged as account.settings_changed', async () => {
    const api = await t.ctx.as([...CALLER]);
    expect((await api.get(POLICY)).body).toEqual({ rules: [], updated_at: null });
    expect(await storedPolicy(t.ctx, api.accountId)).toBeUndefined();

    const set = await api.put(POLICY, { rules: [usdRule, eurRule] });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ rules: [eurRule, usdRule], updated_at: expect.stringMatching(ISO_MICROS) });
    expect((await api.get(POLICY)).body).toEqual(set.body);
    const stored = await storedPolicy(t.ctx, api.accountId);
    expect(JSON.parse(stored!.rules_json)).toEqual([eurRule, usdRule]);

    const cleared = await api.put(POLICY, { rules: [] });
    expect([cleared.status, cleared.body.rules]).toEqual([200, []]);
    expect((await api.get(POLICY)).body).toEqual(cleared.body);

    const log = await api.get(AUDIT, { 'action[]': 'account.settings_changed' });
    expect(log.status, log.text).toBe(200);
    expect(log.body.items.map((e: any) => [e.request_id, e.target, e.details])).toEqual([
      [
        cleared.headers['x-request-id'],
        { type: 'account', id: api.accountId },
        { receipt_rules_before: [eurRule, usdRule], receipt_rules: [] },
      ],
      [
        set.headers['x-request-id'],
        { type: 'account', id: api.accountId },
        { receipt_rules_before: [], receipt_rules: [eurRule, usdRule] },
      ],
    ]);
  });

  it('refuses each bad rule with a pointer to it, and stores nothing', async () => {
    const api = await t.ctx.as([...CALLER]);
    const refusals: [unknown, { path: string; message: string }[]][] = [
      [
        {
          rules: [
            { ...usdRule, currency: 'XYZ' },
            { ...eurRule, currency: 'usd' },
          ],
        },
        [
          { path: '/rules/0/currency', message: 'must be an ISO 4217 currency code' },
          { path: '/rules/1/currency', message: 'must be an ISO 4217 currency code' },
        ],
      ],
      [{ rules: [{ ...usdRule, above_minor: -1 }] }, [{ path: '/rules/0/above_minor', message: 'must be at least 0' }]],
      [
        { rules: [{ ...usdRule, above_minor: 75.5 }] },
        [{ path: '/rules/0/above_minor', message: 'must be an integer' }],
      ],
      [
        { rules: [usdRule, eurRule, { ...usdRule, above_minor: 10 }] },
        [{ path: '/rules/2/currency', message: 'repeats USD of /rules/0: one rule per currency' }],
      ],
      [
        { rules: [{ ...usdRule, record_types: ['CARD_EXPENSE_POST', 'CARD_TRANSACTION'] }] },
        [{ path: '/rules/0/record_types/1', message: expect.stringMatching(/^must be one of/) }],
      ],
      [
        { rules: [{ ...usdRule, record_types: [] }] },
        [{ path: '/rules/0/record_types', message: 'must have at least one item' }],
      ],
      [{ rules: [{ ...usdRule, above: 5 }] }, [{ path: '/rules/0/above', message: 'is not allowed' }]],
    ];
    const answers: unknown[] = [];
    for (const [body] of refusals) {
      const res = await api.put(POLICY, body);
      answers.push([res.status, res.body]);
    }
    expect(answers).toEqual(
      refusals.map(([, problems]) => [400, errorBody('INVALID_REQUEST', { details: { errors: problems } })]),
    );
    expect(await storedPolicy(t.ctx, api.accountId)).toBeUndefined();
    expect((await api.get(POLICY)).body).toEqual({ rules: [], updated_at: null });
    expect((await api.get(AUDIT, { 'action[]': 'account.settings_changed' })).body.items).toEqual([]);
  });

  it('honours Idempotency-Key: a retry answers the stored result and changes nothing', async () => {
    const api = await t.ctx.as([...CALLER]);
    const key = { 'idempotency-key': 'policy-1' };
    const first = await api.put(POLICY, { rules: [usdRule] }, key);
    expect(first.status).toBe(200);
    const replay = await api.put(POLICY, { rules: [usdRule] }, key);
    expect([replay.status, replay.body, replay.headers['idempotent-replayed']]).toEqual([200, first.body, 'true']);
    expect((await api.get(AUDIT, { 'action[]': 'account.settings_changed' })).body.items).toHaveLength(1);
  });

  it('review scopes read the policy; only the admin scope sets it; another account has its own', async () => {
    const owner = await t.ctx.as([...CALLER]);
    const reviewer = await t.ctx.as(['accounting.record.review'], owner.accountId);
    const reader = await t.ctx.as(['accounting.record.read', 'accounting.record.write'], owner.accountId);
    const admin = await t.ctx.as(['accounting.record.admin'], owner.accountId);
    expect((await reviewer.get(POLICY)).status).toBe(200);
    expect((await admin.get(POLICY)).status).toBe(200);
    expect((await reader.get(POLICY)).status).toBe(403);
    const refused = await reviewer.put(POLICY, { rules: [usdRule] });
    expect([refused.status, refused.body.error_code]).toEqual([403, 'FORBIDDEN']);
    expect((await reader.put(POLICY, { rules: [usdRule] })).status).toBe(403);
    expect(await storedPolicy(t.ctx, owner.accountId)).toBeUndefined();
    expect((await admin.put(POLICY, { rules: [usdRule] })).status).toBe(200);
    expect((await reviewer.get(POLICY)).body.rules).toEqual([usdRule]);
    const stranger = await t.ctx.as(['accounting.record.admin']);
    expect((await stranger.get(POLICY)).body).toEqual({ rules: [], updated_at: null });
  });
});
