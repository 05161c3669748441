import { expect, it } from 'vitest';
import { INGEST, RECORDS } from './support/accounting.js';
import { newRule, ruleBody, ruleChart, vendor } from './support/coding-rules.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { BULK, historyUrl, REQUIRED, REVIEWER, SEARCH, usd } from './support/review.js';
import { storedRecord } from './support/stored.js';
import { EVENTS } from './support/webhooks.js';

const SETTINGS = '/internal/v1/accounting/review-settings';
const AUDIT = '/internal/v1/audit-events';
const CALLER = [...REVIEWER, 'events.read', 'audit.read'] as const;

/** The stored settings row of the account, if any. */
const storedSettings = ({ db }: TestContext, accountId: string) =>
  db.direct.selectFrom('account_review_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();

describeEachDialect('review settings: auto-submit', (t) => {
  /** A chart with GL required and a rule "Uber → Travel", and a caller of the account with every scope used here. */
  async function account() {
    const chart = await ruleChart(t.ctx);
    const api = await t.ctx.as([...CALLER], chart.api.accountId);
    const rule = await newRule(api, ruleBody('uber', [chart.set(chart.gl, 1)]));
    expect((await api.put(REQUIRED, { field_ids: [chart.gl.field.svc_id] })).status).toBe(200);
    return { ...chart, api, rule };
  }

  it('is off by default: a fully coded record stays in PREPARE', async () => {
    const { api } = await account();
    expect((await api.get(SETTINGS)).body).toEqual({ auto_submit: false, updated_at: null });
    const record = await api.newRecord({ vendor: vendor('Uber') });
    expect([record.review_status, record.version]).toEqual(['PREPARE', 1]);
    expect(record.line_items[0].accounting_field_values).toHaveLength(1);
    expect(await storedSettings(t.ctx, api.accountId)).toBeUndefined();
  });

  it('on: records rules coded in full go to REVIEW in the ingestion; records coded as sent, or not in full, stay as they were created', async () => {
    const { api, gl, dept, set, rule } = await account();
    const on = await api.put(SETTINGS, { auto_submit: true });
    expect([on.status, on.body]).toEqual([200, { auto_submit: true, updated_at: expect.stringMatching(ISO_MICROS) }]);
    expect((await api.get(SETTINGS)).body).toEqual(on.body);

    const res = await api.post(INGEST, {
      items: [
        // coded by the rule
        { ...base(), vendor: vendor('Uber') },
        // coded as sent, on both lines: no rule set a value, so it stays in PREPARE
        {
          ...base(),
          vendor: vendor('Acme'),
          lines: [
            { amount: usd(10), field_values: [set(gl, 0)] },
            { amount: usd(20), field_values: [set(gl, 2), set(dept, 0)] },
          ],
        },
        // one line lacks the required GL
        {
          ...base(),
          vendor: vendor('Acme'),
          lines: [
            { amount: usd(10), field_values: [set(gl, 0)] },
            { amount: usd(20), field_values: [set(dept, 0)] },
          ],
        },
        // uncoded
        { ...base(), vendor: vendor('Lyft') },
        // created ready for export, and in REVIEW: as asked
        { ...base(), vendor: vendor('Uber'), review_status: 'READY_FOR_EXPORT' },
        { ...base(), vendor: vendor('Uber'), review_status: 'REVIEW' },
        // the rule's merchant, but sent coded on every line: the rule sets nothing, so it stays in PREPARE
        {
          ...base(),
          vendor: vendor('Uber'),
          lines: [
            { amount: usd(10), field_values: [set(gl, 0)] },
            { amount: usd(20), field_values: [set(gl, 2)] },
          ],
        },
        // one line sent coded, the rule codes the other: coded in full by the two together, so it moves
        {
          ...base(),
          vendor: vendor('Uber'),
          lines: [
            { amount: usd(10), field_values: [set(gl, 0)] },
            { amount: usd(20), field_values: [] },
          ],
        },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const items: any[] = res.body.items;
    expect(items.map((r) => [r.review_status, r.version])).toEqual([
      ['REVIEW', 2],
      ['PREPARE', 1],
      ['PREPARE', 1],
      ['PREPARE', 1],
      ['READY_FOR_EXPORT', 1],
      ['REVIEW', 1],
      ['PREPARE', 1],
      ['REVIEW', 2],
    ]);
    // The rule's value on the last record's second line only; the first keeps what was sent.
    expect(
      items[7].line_items.slice(0, 2).map((l: any) => l.accounting_field_values.map((v: any) => v.svc_field_value_id)),
    ).toEqual([[set(gl, 0).svc_id], [set(gl, 1).svc_id]]);
    for (const r of items) {
      expect(await storedRecord(t.ctx, api.accountId, r.id)).toMatchObject({
        review_status: r.review_status,
        version: r.version,
      });
    }

    // The history: ingested in PREPARE (coded by the rule), then moved to REVIEW by auto-submit, at the same time.
    const history = (await api.get(historyUrl(items[0].id))).body.items;
    const line = items[0].line_items[0].id;
    expect(history).toEqual([
      {
        event_id: expect.any(String),
        version: 1,
        type: 'INGESTED',
        occurred_at: items[0].updated_at,
        actor: { type: 'client', id: api.clientId },
        changes: {
          review_status: 'PREPARE',
          coded_by_rules: [{ line_id: line, ...set(gl, 1), rule_id: rule.id, rule_version: 1 }],
        },
      },
      {
        event_id: expect.any(String),
        version: 2,
        type: 'MOVED',
        occurred_at: items[0].updated_at,
        actor: { type: 'client', id: api.clientId },
        changes: { review_status: { from: 'PREPARE', to: 'REVIEW' }, auto_submitted: true },
      },
    ]);
    expect((await api.get(historyUrl(items[7].id))).body.items.map((e: any) => [e.type, e.changes])).toEqual([
      [
        'INGESTED',
        {
          review_status: 'PREPARE',
          coded_by_rules: [{ line_id: items[7].line_items[1].id, ...set(gl, 1), rule_id: rule.id, rule_version: 1 }],
        },
      ],
      ['MOVED', { review_status: { from: 'PREPARE', to: 'REVIEW' }, auto_submitted: true }],
    ]);
    for (const r of items.slice(1, 7)) {
      expect((await api.get(historyUrl(r.id))).body.items.map((e: any) => e.type)).toEqual(['INGESTED']);
    }

    // The counts and the review queue see them where they are.
    const inReview = await api.get(SEARCH, { review_status: 'REVIEW', limit: '100' });
    expect(inReview.body.items.map((r: any) => r.id).sort()).toEqual([items[0].id, items[5].id, items[7].id].sort());
    const prepare = await api.get(RECORDS, { review_status: 'PREPARE' });
    expect(prepare.body.total_count).toBe(4);

    // The feed announces what a move from PREPARE to REVIEW announces: nothing; only the record made ready does.
    const feed = await api.get(EVENTS);
    expect(feed.status, feed.text).toBe(200);
    const recordEvents = feed.body.items.filter((e: any) => e.type.startsWith('accounting_record.'));
    expect(recordEvents.map((e: any) => [e.type, e.data.id])).toEqual([
      ['accounting_record.ready_for_export', items[4].id],
    ]);

    // An auto-submitted record moves on as any other.
    const approved = await api.post(BULK, {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: items[0].id, version: 2 }],
    });
    expect(approved.status, approved.text).toBe(200);
  });

  it('moves nothing while the account requires no coding, and stops when turned off', async () => {
    const { api, gl } = await account();
    expect((await api.put(SETTINGS, { auto_submit: true })).status).toBe(200);
    expect((await api.put(REQUIRED, { field_ids: [] })).status).toBe(200);
    expect((await api.newRecord({ vendor: vendor('Uber') })).review_status).toBe('PREPARE');
    expect((await api.put(REQUIRED, { field_ids: [gl.field.svc_id] })).status).toBe(200);
    expect((await api.newRecord({ vendor: vendor('Uber') })).review_status).toBe('REVIEW');
    const off = await api.put(SETTINGS, { auto_submit: false });
    expect([off.status, off.body.auto_submit]).toEqual([200, false]);
    expect((await api.newRecord({ vendor: vendor('Uber') })).review_status).toBe('PREPARE');
    expect(await storedSettings(t.ctx, api.accountId)).toMatchObject({ auto_submit: 0 });
  });

  it('refuses bad bodies (400, every problem named), changes nothing, and audits each change', async () => {
    const { api } = await account();
    for (const [body, errors] of [
      [{}, [{ path: '/auto_submit', message: expect.any(String) }]],
      [{ auto_submit: 'yes' }, [{ path: '/auto_submit', message: expect.any(String) }]],
      [{ auto_submit: null }, [{ path: '/auto_submit', message: expect.any(String) }]],
      [{ auto_submit: true, required_coding: [] }, [{ path: '/required_coding', message: expect.any(String) }]],
    ] as const) {
      const res = await api.put(SETTINGS, body);
      expect([res.status, res.body], JSON.stringify(body)).toEqual([
        400,
        errorBody('INVALID_REQUEST', { details: { errors } }),
      ]);
    }
    const notJson = await api.request('PUT', SETTINGS, {
      body: 'auto_submit=true',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(notJson.status).toBe(415);
    expect(await storedSettings(t.ctx, api.accountId)).toBeUndefined();
    expect((await api.get(SETTINGS)).body).toEqual({ auto_submit: false, updated_at: null });

    const on = await api.put(SETTINGS, { auto_submit: true });
    const again = await api.put(SETTINGS, { auto_submit: true });
    expect(again.status).toBe(200);
    const log = await api.get(AUDIT, { 'action[]': 'account.settings_changed' });
    expect(log.status, log.text).toBe(200);
    expect(log.body.items.map((e: any) => [e.request_id, e.target, e.details])).toEqual([
      [
        again.headers['x-request-id'],
        { type: 'account', id: api.accountId },
        { auto_submit_before: true, auto_submit: true },
      ],
      [
        on.headers['x-request-id'],
        { type: 'account', id: api.accountId },
        { auto_submit_before: false, auto_submit: true },
      ],
    ]);
  });

  it('honours Idempotency-Key: a retry answers the stored result and changes nothing', async () => {
    const { api } = await account();
    const key = { 'idempotency-key': 'settings-1' };
    const first = await api.put(SETTINGS, { auto_submit: true }, key);
    expect(first.status).toBe(200);
    const replay = await api.put(SETTINGS, { auto_submit: true }, key);
    expect([replay.status, replay.body, replay.headers['idempotent-replayed']]).toEqual([200, first.body, 'true']);
    const reused = await api.put(SETTINGS, { auto_submit: false }, key);
    expect([reused.status, reused.body.error_code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect((await api.get(SETTINGS)).body).toEqual(first.body);
    expect((await api.get(AUDIT, { 'action[]': 'account.settings_changed' })).body.items).toHaveLength(1);
  });

  it('review scopes read the settings; only the admin scope changes them; another account has its own', async () => {
    const { api } = await account();
    const reviewer = await t.ctx.as(['accounting.record.review'], api.accountId);
    const reader = await t.ctx.as(['accounting.record.read', 'accounting.record.write'], api.accountId);
    const admin = await t.ctx.as(['accounting.record.admin'], api.accountId);
    expect((await reviewer.get(SETTINGS)).status).toBe(200);
    expect((await admin.get(SETTINGS)).status).toBe(200);
    expect((await reader.get(SETTINGS)).status).toBe(403);
    const refused = await reviewer.put(SETTINGS, { auto_submit: true });
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toContain('insufficient_scope');
    expect((await reader.put(SETTINGS, { auto_submit: true })).status).toBe(403);
    expect(await storedSettings(t.ctx, api.accountId)).toBeUndefined();
    expect((await admin.put(SETTINGS, { auto_submit: true })).status).toBe(200);
    expect((await reviewer.get(SETTINGS)).body.auto_submit).toBe(true);
    const stranger = await t.ctx.as(['accounting.record.admin']);
    expect((await stranger.get(SETTINGS)).body).toEqual({ auto_submit: false, updated_at: null });
  });
});

/** An ingested item's required members, with a 30 USD amount. */
function base() {
  return { type: 'CARD_EXPENSE_POST', amount: usd(30), posted_at: '2026-06-11T09:09:05.840865Z' };
}
