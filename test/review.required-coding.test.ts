import { expect, it } from 'vitest';
import type { Api } from './support/api.js';
import { ADMIN, EXPORT_RESULTS, INGEST, item, RECORDS, reviewUrl } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { storedRecord, storedRecords } from './support/stored.js';

const REVIEWER = [...ADMIN, 'accounting.record.review', 'accounting.record.read'] as const;
const BULK = '/internal/v1/accounting/records/review-status';
const REQUIRED = '/internal/v1/accounting/required-coding';
const codingUrl = (id: string) => `/internal/v1/accounting/records/${id}/coding`;
const historyUrl = (id: string) => `/internal/v1/accounting/records/${id}/history`;
const usd = (amount: number) => ({ amount, currency: 'USD' });

/** An account requiring GL Account and Department (two values each), and a client of it. */
async function setup(ctx: TestContext, given?: Api) {
  const api = given ?? (await ctx.as([...REVIEWER]));
  const gl = await api.newCoding('GL Account', [{ value: '6010 Meals' }, { value: '6020 Travel' }]);
  const dept = await api.newCoding('Department', [{ value: 'Sales' }, { value: 'Ops' }]);
  const ref = (coding: typeof gl, k = 0) => ({ field_id: coding.field.svc_id, svc_id: coding.values[k].svc_id });
  const named = (coding: typeof gl) => ({ field_id: coding.field.svc_id, field_name: coding.field.name });
  const res = await api.put(REQUIRED, { field_ids: [dept.field.svc_id, gl.field.svc_id] });
  expect([res.status, res.body]).toEqual([200, { items: [named(gl), named(dept)] }]);
  return { api, gl, dept, ref, named };
}

/** The stored rows of the account's required fields. */
const storedRequired = ({ db }: TestContext, accountId: string) =>
  db.direct
    .selectFrom('account_required_fields')
    .select('field_id')
    .where('account_id', '=', accountId)
    .orderBy('field_id')
    .execute();

/** What a refusal must leave as it was: the record and its history. */
async function snapshot(ctx: TestContext, api: Api, id: string) {
  return { stored: await storedRecord(ctx, api.accountId, id), history: (await api.get(historyUrl(id))).body };
}

describeEachDialect('review: required coding', (t) => {
  it("PUT replaces the list and GET answers it; unknown or another account's fields → 404 naming them, nothing stored", async () => {
    const { api, gl, dept, named } = await setup(t.ctx);
    const stranger = await t.ctx.as([...REVIEWER]);
    const theirs = await stranger.newField();
    const before = await storedRequired(t.ctx, api.accountId);
    const refused = await api.put(REQUIRED, { field_ids: [gl.field.svc_id, 'fld_nope', theirs] });
    expect([refused.status, refused.body]).toEqual([
      404,
      errorBody('NOT_FOUND', {
        details: { not_found_field_ids: ['fld_nope', theirs] },
      }),
    ]);
    expect(await storedRequired(t.ctx, api.accountId)).toEqual(before);
    expect((await api.get(REQUIRED)).body).toEqual({ items: [named(gl), named(dept)] });
    expect(await storedRequired(t.ctx, stranger.accountId)).toEqual([]);

    // The accountant reads the list; only the admin scope sets it.
    const reviewer = await t.ctx.as(['accounting.record.review'], api.accountId);
    expect((await reviewer.get(REQUIRED)).body).toEqual({ items: [named(gl), named(dept)] });
    expect((await reviewer.put(REQUIRED, { field_ids: [] })).status).toBe(403);
    expect((await stranger.get(REQUIRED)).body).toEqual({ items: [] });

    const once = await api.put(REQUIRED, { field_ids: [gl.field.svc_id, gl.field.svc_id] });
    expect([once.status, once.body]).toEqual([200, { items: [named(gl)] }]);
    expect(await storedRequired(t.ctx, api.accountId)).toEqual([{ field_id: gl.field.svc_id }]);
    const cleared = await api.put(REQUIRED, { field_ids: [] });
    expect([cleared.status, cleared.body]).toEqual([200, { items: [] }]);
    expect((await api.get(REQUIRED)).body).toEqual({ items: [] });
  });

  it('a move to READY_FOR_EXPORT, single or bulk, of a record lacking required fields → 422 naming records, lines and fields', async () => {
    const { api, gl, dept, ref, named } = await setup(t.ctx);
    // A refund: its economic lines are credits, and the balancing debit is never coded nor checked.
    const record = await api.newRecord({
      type: 'CARD_EXPENSE_REFUND',
      review_status: 'REVIEW',
      lines: [{ amount: usd(100), field_values: [ref(gl)] }, { amount: usd(71.75) }],
    });
    const [first, second] = record.line_items;
    const lines = [
      { index: 0, line_id: first.id, missing_fields: [named(dept)] },
      { index: 1, line_id: second.id, missing_fields: [named(gl), named(dept)] },
    ];
    const before = await snapshot(t.ctx, api, record.id);
    const single = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT', version: 1 });
    expect([single.status, single.body]).toEqual([
      422,
      errorBody('CODING_REQUIRED', {
        details: { records: [{ accounting_record_id: record.id, lines }] },
      }),
    ]);
    const bulk = await api.post(BULK, { review_status: 'READY_FOR_EXPORT', records: [{ id: record.id }] });
    expect([bulk.status, bulk.body]).toEqual([
      422,
      errorBody('CODING_REQUIRED', {
        details: {
          errors: [
            {
              accounting_record_id: record.id,
              error_code: 'CODING_REQUIRED',
              message: expect.any(String),
              reason: expect.any(String),
              lines,
            },
          ],
        },
      }),
    ]);
    expect(await snapshot(t.ctx, api, record.id)).toEqual(before);

    // One line coded: the other is still named.
    const partly = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: first.id, field_values: [ref(gl), ref(dept, 1)] }],
    });
    expect(partly.status, partly.text).toBe(200);
    const still = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect([still.status, still.body.details]).toEqual([
      422,
      { records: [{ accounting_record_id: record.id, lines: [lines[1]] }] },
    ]);
    const coded = await api.post(codingUrl(record.id), {
      version: 2,
      lines: [{ line_id: second.id, field_values: [ref(dept), ref(gl, 1)] }],
    });
    expect(coded.status, coded.text).toBe(200);
    const moved = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT', version: 3 });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toEqual({
      ...coded.body.record,
      review_status: 'READY_FOR_EXPORT',
      version: 4,
      updated_at: moved.body.updated_at,
    });
    expect(await storedRecord(t.ctx, api.accountId, record.id)).toMatchObject({
      review_status: 'READY_FOR_EXPORT',
      uncoded_lines: 0,
    });
  });

  it('ingestion with review_status READY_FOR_EXPORT is checked too (details name /items/i); other states are not', async () => {
    const { api, gl, dept, ref, named } = await setup(t.ctx);
    const res = await api.post(INGEST, {
      items: [
        item({
          review_status: 'READY_FOR_EXPORT',
          lines: [{ amount: usd(171.75), field_values: [ref(gl), ref(dept)] }],
        }),
        item({
          review_status: 'READY_FOR_EXPORT',
          lines: [{ amount: usd(71.75), field_values: [ref(dept)] }, { amount: usd(100) }],
        }),
        item({ review_status: 'REVIEW' }),
        item({ review_status: 'READY_FOR_EXPORT' }),
      ],
    });
    expect([res.status, res.body]).toEqual([
      422,
      errorBody('CODING_REQUIRED', {
        details: {
          records: [
            {
              path: '/items/1',
              lines: [
                { index: 0, line_id: null, missing_fields: [named(gl)] },
                { index: 1, line_id: null, missing_fields: [named(gl), named(dept)] },
              ],
            },
            { path: '/items/3', lines: [{ index: 0, line_id: null, missing_fields: [named(gl), named(dept)] }] },
          ],
        },
      }),
    ]);
    expect(await storedRecords(t.ctx, api.accountId)).toEqual([]);
    expect((await api.get(RECORDS)).body.total_count).toBe(0);

    const ok = await api.post(INGEST, {
      items: [item({ review_status: 'REVIEW' }), item({ review_status: 'PREPARE' })],
    });
    expect(ok.status, ok.text).toBe(200);
  });

  it('records already READY_FOR_EXPORT are not re-checked; deleting a field drops it from the list and the check', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const earlier = await api.readyRecord();
    const { gl, dept, ref, named } = await setup(t.ctx, api);
    const report = await api.post(EXPORT_RESULTS, { results: [{ accounting_record_id: earlier.id, success: {} }] });
    expect(report.status, report.text).toBe(200);

    const record = await api.newRecord({
      review_status: 'REVIEW',
      lines: [{ amount: usd(171.75), field_values: [ref(gl)] }],
    });
    const refused = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect([refused.status, refused.body.details]).toEqual([
      422,
      {
        records: [
          {
            accounting_record_id: record.id,
            lines: [{ index: 0, line_id: record.line_items[0].id, missing_fields: [named(dept)] }],
          },
        ],
      },
    ]);
    expect((await api.delete(`/v1/fields/${dept.field.svc_id}`)).status).toBe(200);
    expect((await api.get(REQUIRED)).body).toEqual({ items: [named(gl)] });
    expect(await storedRequired(t.ctx, api.accountId)).toEqual([{ field_id: gl.field.svc_id }]);
    const moved = await api.post(BULK, { review_status: 'READY_FOR_EXPORT', records: [{ id: record.id, version: 1 }] });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.items[0]).toMatchObject({ id: record.id, review_status: 'READY_FOR_EXPORT', version: 2 });
  });

  it('a bulk move of 1000 records to READY_FOR_EXPORT is checked across all of them, and passes once they are coded', async () => {
    const { api, gl, dept, ref, named } = await setup(t.ctx);
    const line = { amount: usd(171.75), field_values: [ref(gl), ref(dept)] };
    // Record 700 (in the second chunk of 500 read) lacks the department.
    const created = await api.newRecords(
      Array.from({ length: 1000 }, (_, i) => ({
        review_status: 'REVIEW',
        lines: [i === 700 ? { ...line, field_values: [ref(gl)] } : line],
      })),
    );
    const ids = created.map((r) => r.id);
    const events = () =>
      t.ctx.db.direct
        .selectFrom('accounting_record_events')
        .select(['record_id', 'type'])
        .where('account_id', '=', api.accountId)
        .where('type', '=', 'MOVED')
        .execute();
    const before = await storedRecords(t.ctx, api.accountId);
    const refused = await api.post(BULK, {
      review_status: 'READY_FOR_EXPORT',
      records: ids.map((id) => ({ id, version: 1 })),
    });
    expect([refused.status, refused.body.details.errors]).toEqual([
      422,
      [
        {
          accounting_record_id: ids[700],
          error_code: 'CODING_REQUIRED',
          message: expect.any(String),
          reason: expect.any(String),
          lines: [{ index: 0, line_id: created[700].line_items[0].id, missing_fields: [named(dept)] }],
        },
      ],
    ]);
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(before);
    expect(await events()).toEqual([]);

    const coding = await api.post(codingUrl(ids[700]!), {
      version: 1,
      lines: [{ line_id: created[700].line_items[0].id, field_values: [ref(gl), ref(dept, 1)] }],
    });
    expect(coding.status, coding.text).toBe(200);
    const res = await api.post(BULK, {
      review_status: 'READY_FOR_EXPORT',
      records: ids.map((id, i) => ({ id, version: i === 700 ? 2 : 1 })),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((i: any) => [i.id, i.review_status, i.version])).toEqual(
      ids.map((id, i) => [id, 'READY_FOR_EXPORT', i === 700 ? 3 : 2]),
    );
    const times = res.body.items.map((i: any) => i.updated_at);
    expect(times.every((time: string, k: number) => k === 0 || time > times[k - 1])).toBe(true);
    const stored = await storedRecords(t.ctx, api.accountId);
    expect(stored.map((r) => [r.id, r.review_status])).toEqual(ids.map((id) => [id, 'READY_FOR_EXPORT']));
    expect((await events()).map((e) => e.record_id).sort()).toEqual([...ids].sort());
    const counted = await api.get(RECORDS, { review_status: 'READY_FOR_EXPORT', limit: '1' });
    expect(counted.body.total_count).toBe(1000);
    const history = await api.get(historyUrl(ids[999]!));
    expect(history.body.items.at(-1)).toMatchObject({ version: 2, type: 'MOVED', occurred_at: times[999] });
  });
});
