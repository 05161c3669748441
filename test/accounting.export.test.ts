import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { ADMIN, EXPORT_RESULTS, RECORDS } from './support/accounting.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { storedRecords } from './support/stored.js';

describeEachDialect('accounting export results', (t) => {
  it('success → EXPORTED, failure → REVIEW, both kept as last_export_result; ids in request order', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const a = await api.readyRecord();
    const b = await api.readyRecord();
    const c = await api.readyRecord();
    const res = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: c.id, failure: { error_message: 'Invalid GL account' } },
        {
          accounting_record_id: a.id,
          success: { reference_id: 'erp_txn_1', deep_link_url: 'https://erp.example/txn/1' },
        },
        { accounting_record_id: b.id, success: {} },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated_accounting_record_ids: [c.id, a.id, b.id] });
    const get = async (id: string) => (await api.get(`${RECORDS}/${id}`)).body;
    const [ga, gb, gc] = [await get(a.id), await get(b.id), await get(c.id)];
    expect(ga).toEqual({
      ...a,
      review_status: 'EXPORTED',
      version: 2,
      updated_at: expect.stringMatching(ISO_MICROS),
      last_export_result: {
        status: 'SUCCESS',
        reference_id: 'erp_txn_1',
        deep_link_url: 'https://erp.example/txn/1',
        error_message: null,
        reported_at: ga.updated_at,
      },
    });
    expect(gb.last_export_result).toEqual({
      status: 'SUCCESS',
      reference_id: null,
      deep_link_url: null,
      error_message: null,
      reported_at: gb.updated_at,
    });
    expect(gc).toMatchObject({
      review_status: 'REVIEW',
      version: 2,
      last_export_result: {
        status: 'FAILURE',
        reference_id: null,
        deep_link_url: null,
        error_message: 'Invalid GL account',
      },
    });
    expect(gc.updated_at < ga.updated_at && ga.updated_at < gb.updated_at).toBe(true);
    // a second report for an exported record is not allowed
    const again = await api.post(EXPORT_RESULTS, { results: [{ accounting_record_id: a.id, success: {} }] });
    expect(again.status).toBe(422);
  });

  it('unknown or foreign ids → 404 naming them, valid results in the batch not applied', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const other = await t.ctx.as([...ADMIN]);
    const mine = await api.readyRecord();
    const theirs = await other.readyRecord();
    const before = await storedRecords(t.ctx, api.accountId);
    const res = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: mine.id, success: {} },
        { accounting_record_id: 'accr_nope', failure: { error_message: 'x' } },
        { accounting_record_id: theirs.id, success: {} },
      ],
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody('NOT_FOUND', { details: { not_found_export_entry_source_ids: ['accr_nope', theirs.id] } }),
    );
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(before);
    expect((await other.get(`${RECORDS}/${theirs.id}`)).body).toEqual(theirs);
  });

  it('an id twice → 422 DUPLICATE_ACCOUNTING_RECORD_IDS, nothing changed', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const a = await api.readyRecord();
    const b = await api.readyRecord();
    const before = await storedRecords(t.ctx, api.accountId);
    const res = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: a.id, success: {} },
        { accounting_record_id: b.id, success: {} },
        { accounting_record_id: a.id, failure: { error_message: 'x' } },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      errorBody('DUPLICATE_ACCOUNTING_RECORD_IDS', {
        details: { duplicate_accounting_record_ids: [a.id] },
      }),
    );
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(before);
  });

  it('a record not READY_FOR_EXPORT → 422 naming it, nothing changed', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const ready = await api.readyRecord();
    const prepare = await api.newRecord();
    const review = await api.newRecord({ review_status: 'REVIEW' });
    const before = await storedRecords(t.ctx, api.accountId);
    const res = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: review.id, success: {} },
        { accounting_record_id: ready.id, success: {} },
        { accounting_record_id: prepare.id, failure: { error_message: 'x' } },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      errorBody('ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT', {
        details: { not_ready_for_export_accounting_record_ids: [review.id, prepare.id] },
      }),
    );
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(before);
  });

  it('validates the body: 1 to 1000 results, each exactly one of success / failure', async () => {
    const api = await t.ctx.as(['accounting.record.write']);
    const union =
      'must be {accounting_record_id, success: {deep_link_url?, reference_id?}} or {accounting_record_id, failure: {error_message}}';
    const res = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: 'a', success: {}, failure: { error_message: 'x' } },
        { accounting_record_id: 'b' },
        { success: {} },
        { accounting_record_id: 'c', failure: {} },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual([0, 1, 2, 3].map((i) => ({ path: `/results/${i}`, message: union })));
    expect((await api.post(EXPORT_RESULTS, { results: [] })).body.details.errors).toEqual([
      { path: '/results', message: expect.any(String) },
    ]);
    const many = Array.from({ length: 1001 }, (_, i) => ({ accounting_record_id: `r${i}`, success: {} }));
    expect((await api.post(EXPORT_RESULTS, { results: many })).body.details.errors).toEqual([
      { path: '/results', message: expect.any(String) },
    ]);
    const reader = await t.ctx.as(['accounting.record.read']);
    expect((await reader.post(EXPORT_RESULTS, { results: [{ accounting_record_id: 'a', success: {} }] })).status).toBe(
      403,
    );
  });

  it('1000 results in one request', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const created = await api.newRecords(
      Array.from({ length: 1000 }, () => ({
        type: 'BILL_EXPENSE',
        amount: { amount: 5, currency: 'USD' },
        posted_at: '2026-01-01T00:00:00Z',
        review_status: 'READY_FOR_EXPORT',
      })),
    );
    const ids = created.map((r: any) => r.id).reverse();
    const res = await api.post(EXPORT_RESULTS, {
      results: ids.map((id: string) => ({ accounting_record_id: id, success: {} })),
    });
    expect(res.status).toBe(200);
    expect(res.body.updated_accounting_record_ids).toEqual(ids);
    const rows = await storedRecords(t.ctx, api.accountId);
    expect(rows.every((r) => r.review_status === 'EXPORTED' && Number(r.version) === 2)).toBe(true);
    // updated_at follows request order
    expect(rows.map((r) => r.id)).toEqual(ids);
  });

  it('concurrent reports for the same record: one wins, the others get 422', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const record = await api.readyRecord();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post(EXPORT_RESULTS, {
          results: [
            i % 2
              ? { accounting_record_id: record.id, success: { reference_id: `r${i}` } }
              : { accounting_record_id: record.id, failure: { error_message: `f${i}` } },
          ],
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 422, 422, 422, 422, 422]);
    const [row] = await storedRecords(t.ctx, api.accountId);
    expect(Number(row!.version)).toBe(2);
  });
});
