import { expect, it } from 'vitest';
import {
  SvcApiError,
  SvcClient,
  type AccountingRecord,
  type FieldValue,
  type RecordCreate,
  type RecordEvent,
  type RecordSearchPage,
  type RecordWithSingleEntry,
} from '../../client/src/index.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { describeLive, type LiveServer } from './live-server.js';

const ALL: Scope[] = [
  'accounting.record.admin',
  'accounting.record.review',
  'accounting.record.read',
  'fields.write',
  'field_values.write',
];

/** An SDK client of a new account (or of `accountId`) with these scopes. */
async function clientOf(live: LiveServer, scopes: Scope[] = ALL, accountId?: string) {
  const { clientId, clientSecret, accountId: account } = await live.credentials(scopes, accountId);
  return { client: new SvcClient({ baseUrl: live.url, clientId, clientSecret, maxRetries: 0 }), accountId: account };
}

/** The SvcApiError a call fails with (and a failure of the test when it does not fail so). */
async function failure(call: Promise<unknown>): Promise<SvcApiError> {
  const error = await call.then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  if (!(error instanceof SvcApiError)) throw error;
  return error;
}

const usd = (amount: number) => ({ amount, currency: 'USD' });
const card = (amount: number, overrides: Partial<RecordCreate> = {}): RecordCreate => ({
  type: 'CARD_EXPENSE_POST',
  amount: usd(amount),
  posted_at: '2026-06-11T09:09:05Z',
  review_status: 'REVIEW',
  ...overrides,
});

/** A field with two values for coding lines. */
async function chart(client: SvcClient) {
  const field = await client.fields.create({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' });
  const { items } = await client.fieldValues.create(field.svc_id, [
    { value: '6010 Meals', remote_id: 'GL-6010' },
    { value: '6020 Travel', remote_id: 'GL-6020' },
  ]);
  return { field, values: items };
}

describeLive('SDK: the review workflow', (s) => {
  it('creates records, codes, splits and merges lines, moves records, and reads their history, typed', async () => {
    const { client } = await clientOf(s.live);
    const { field, values } = await chart(client);
    const created = await client.review.createRecords([card(100), card(20)]);
    const [record, other]: AccountingRecord[] = created.items;
    expect(created.items.map((r) => [r.review_status, r.version, r.amount])).toEqual([
      ['REVIEW', 1, usd(100)],
      ['REVIEW', 1, usd(20)],
    ]);
    const lineId = record!.line_items[0]!.id;
    // The reference record's members, typed: the source status, the billing amount, a line's amortization.
    const members: [AccountingRecord['status'], AccountingRecord['billing_amount'], null] = [
      record!.status,
      record!.billing_amount,
      record!.line_items[1]!.amortization,
    ];
    expect(members).toEqual(['SUBMITTED', usd(100), null]);

    const ref = { field_id: field.svc_id, svc_id: values[0]!.svc_id };
    const body = { version: 1, lines: [{ line_id: lineId, field_values: [ref] }] };
    const coded: RecordWithSingleEntry = await client.review.codeLines(record!.id, body, { idempotencyKey: 'code-1' });
    expect(coded.record.version).toBe(2);
    expect(coded.single_entry.line_items).toEqual([coded.record.line_items[0]]);
    expect(coded.record.line_items[0]!.accounting_field_values).toEqual([
      {
        svc_field_id: field.svc_id,
        remote_field_id: 'GL',
        svc_field_value_id: values[0]!.svc_id,
        remote_field_value_id: 'GL-6010',
        field_name: 'GL Account',
        field_value_name: '6010 Meals',
        type: 'IDENTIFIER',
      },
    ]);
    // The same key replays the answer instead of applying the coding again at a stale version.
    expect(await client.review.codeLines(record!.id, body, { idempotencyKey: 'code-1' })).toEqual(coded);
    expect(await client.accountingRecords.get(record!.id)).toEqual(coded.record);

    const split = await client.review.splitLine(record!.id, lineId, {
      version: 2,
      parts: [{ amount: usd(60) }, { amount: usd(40), memo: 'taxi', field_values: [] }],
    });
    const parts = split.record.line_items.slice(0, 2);
    expect(parts.map((l) => [l.amount.amount, l.memo, l.accounting_field_values.length])).toEqual([
      [60, null, 1],
      [40, 'taxi', 0],
    ]);
    const merged = await client.review.mergeLines(record!.id, { version: 3, line_ids: parts.map((l) => l.id) });
    expect(merged.record.line_items.map((l) => [l.type, l.amount.amount])).toEqual([
      ['DEBIT', 100],
      ['CREDIT', 100],
    ]);
    expect(merged.record.version).toBe(4);

    const moved: AccountingRecord = await client.review.moveRecord(record!.id, {
      review_status: 'READY_FOR_EXPORT',
      version: 4,
    });
    expect([moved.review_status, moved.version]).toEqual(['READY_FOR_EXPORT', 5]);
    const bulk = await client.review.moveRecords({
      review_status: 'PREPARE',
      records: [{ id: other!.id, version: 1 }],
    });
    expect(bulk.items).toEqual([
      { id: other!.id, review_status: 'PREPARE', version: 2, updated_at: expect.any(String) },
    ]);

    const first = await client.review.history(record!.id, { limit: 2 });
    expect(first.items.map((e) => e.version)).toEqual([1, 2]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const events: RecordEvent[] = [];
    for await (const event of client.review.historyAll(record!.id)) events.push(event);
    expect(events.map((e) => [e.version, e.type])).toEqual([
      [1, 'INGESTED'],
      [2, 'CODED'],
      [3, 'SPLIT'],
      [4, 'MERGED'],
      [5, 'MOVED'],
    ]);
    expect(events.slice(0, 2)).toEqual(first.items);
    expect(events[4]!.changes).toEqual({ review_status: { from: 'REVIEW', to: 'READY_FOR_EXPORT' } });
  });

  it("searches the review queue page by page and a field's values for a picker", async () => {
    const { client } = await clientOf(s.live);
    const { items } = await client.review.createRecords(
      [5, 1, 4, 2, 3, 4].map((amount, i) =>
        card(amount, { vendor: { id: `v_${i}`, name: i % 2 ? 'Acme Travel' : 'Beta' } }),
      ),
    );
    const page: RecordSearchPage = await client.review.search({ sort: '-amount', limit: 2, single_entry: true });
    expect(page.items.map((r) => r.id)).toEqual([items[0]!.id, items[5]!.id]);
    expect(page.items[0]!.line_items).toHaveLength(1);
    expect(page).toMatchObject({ has_next_page: true, next_cursor: expect.any(String) });
    const found: string[] = [];
    for await (const r of client.review.searchAll({ sort: 'amount', 'amount[gte]': 2, limit: 1 })) found.push(r.id);
    expect(found).toEqual([3, 4, 2, 5, 0].map((i) => items[i]!.id));
    const acme: number[] = [];
    for await (const r of client.review.searchAll({ vendor: 'ACME', sort: '-amount', limit: 2 })) {
      acme.push(r.amount.amount);
    }
    expect(acme).toEqual([4, 2, 1]);
    const refused = await failure(client.review.search({ sort: 'amount', cursor: page.next_cursor! }));
    expect([refused.status, refused.error_code]).toEqual([400, 'INVALID_CURSOR']);

    const field = await client.fields.create({ name: 'Department', group: 'ACCOUNTING' });
    const values = (
      await client.fieldValues.create(field.svc_id, [
        { value: 'Sales Ops' },
        { value: 'Ops', remote_id: 'D-1' },
        { value: 'Old ops', is_disabled: true },
      ])
    ).items;
    const picked: { items: FieldValue[] } = await client.review.searchFieldValues(field.svc_id, { q: 'OPS' });
    expect(picked).toEqual({ items: [values[1], values[0]] });
    expect(
      (await client.review.searchFieldValues(field.svc_id, { q: 'ops', include_disabled: true, limit: 3 })).items,
    ).toEqual([values[1], values[0], values[2]]);
  });

  it('sets the required coding, and raises every refusal as SvcApiError with status and error_code', async () => {
    const { client, accountId } = await clientOf(s.live);
    const { field, values } = await chart(client);
    expect(await client.review.requiredCoding()).toEqual({ items: [] });
    expect(await client.review.setRequiredCoding([field.svc_id])).toEqual({
      items: [{ field_id: field.svc_id, field_name: 'GL Account' }],
    });
    expect(await client.review.requiredCoding()).toEqual({
      items: [{ field_id: field.svc_id, field_name: 'GL Account' }],
    });
    const {
      items: [record],
    } = await client.review.createRecords([card(10)]);

    const uncoded = await failure(client.review.moveRecord(record!.id, { review_status: 'READY_FOR_EXPORT' }));
    expect(uncoded).toMatchObject({ status: 422, error_code: 'CODING_REQUIRED', request_id: expect.any(String) });
    const stale = await failure(
      client.review.codeLines(record!.id, {
        version: 7,
        lines: [{ line_id: record!.line_items[0]!.id, field_values: [] }],
      }),
    );
    expect(stale).toMatchObject({
      status: 409,
      error_code: 'VERSION_CONFLICT',
      details: { expected_version: 7, current_version: 1 },
    });
    const missing = await failure(
      client.review.moveRecords({ review_status: 'PREPARE', records: [{ id: record!.id }, { id: 'accr_nope' }] }),
    );
    expect([missing.status, missing.error_code]).toEqual([404, 'NOT_FOUND']);
    const split = await failure(
      client.review.splitLine(record!.id, record!.line_items[0]!.id, {
        version: 1,
        parts: [{ amount: usd(5) }, { amount: usd(4) }],
      }),
    );
    expect([split.status, split.error_code]).toEqual([400, 'INVALID_REQUEST']);
    const crossed = await failure(client.review.search({ 'amount[gte]': 2, 'amount[lte]': 1 }));
    expect([crossed.status, crossed.error_code]).toEqual([400, 'INVALID_REQUEST']);

    // A reviewer may code and search, not set the account's required coding nor create records.
    const { client: reviewer } = await clientOf(s.live, ['accounting.record.review'], accountId);
    const coded = await reviewer.review.codeLines(record!.id, {
      version: 1,
      lines: [
        { line_id: record!.line_items[0]!.id, field_values: [{ field_id: field.svc_id, svc_id: values[1]!.svc_id }] },
      ],
    });
    expect(coded.record.version).toBe(2);
    expect((await reviewer.review.search({ uncoded: false })).items.map((r) => r.id)).toEqual([record!.id]);
    expect((await failure(reviewer.review.setRequiredCoding([]))).status).toBe(403);
    expect((await failure(reviewer.review.createRecords([card(1)]))).error_code).toBe('FORBIDDEN');

    const { client: stranger } = await clientOf(s.live);
    const foreign = await failure(stranger.review.searchFieldValues(field.svc_id, { q: 'meals' }));
    expect(foreign).toMatchObject({ status: 404, error_code: 'NOT_FOUND', details: { field_id: field.svc_id } });
    expect((await failure(stranger.review.history(record!.id))).status).toBe(404);
  });

  it("reads a record's allowed moves and moves partly, typed", async () => {
    const { client } = await clientOf(s.live);
    const { field, values } = await chart(client);
    const coded = { amount: usd(20), field_values: [{ field_id: field.svc_id, svc_id: values[0]!.svc_id }] };
    const { items } = await client.review.createRecords([
      card(20, { lines: [coded] }),
      card(20),
      card(20, { review_status: 'PREPARE', lines: [coded] }),
    ]);
    const [ready, bare, early] = items as [AccountingRecord, AccountingRecord, AccountingRecord];
    await client.review.setRequiredCoding([field.svc_id]);

    const forReview = await client.review.getForReview(early.id);
    expect(forReview.record.version).toBe(1);
    expect(forReview.allowed_moves.find((m) => m.to === 'READY_FOR_EXPORT')).toMatchObject({
      allowed: false,
      reason_code: 'INVALID_TRANSITION',
      allowed_via: ['REVIEW'],
    });
    const moves = await client.review.allowedMoves([bare.id, ready.id, 'accr_nope']);
    expect(moves.items.map((i) => [i.id, i.allowed_moves.find((m) => m.to === 'READY_FOR_EXPORT')?.allowed])).toEqual([
      [bare.id, false],
      [ready.id, true],
    ]);

    const partly = await client.review.moveRecords({
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: ready.id }, { id: bare.id }, { id: early.id }],
      partial: true,
    });
    expect(partly.items.map((m) => [m.id, m.review_status])).toEqual([[ready.id, 'READY_FOR_EXPORT']]);
    expect(partly.not_moved?.map((n) => [n.accounting_record_id, n.error_code])).toEqual([
      [bare.id, 'CODING_REQUIRED'],
      [early.id, 'INVALID_TRANSITION'],
    ]);
  });
});
