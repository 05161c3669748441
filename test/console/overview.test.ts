import { expect, it } from 'vitest';
import { ADMIN, EXPORT_RESULTS } from '../support/accounting.js';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';

const OVERVIEW = '/internal/v1/accounting/overview';
const today = () => new Date().toISOString().slice(0, 10);

describeEachDialect('review: the overview', (t) => {
  it('counts records by state and source, lists those waiting longest, failed exports and reports per day', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
    const empty = await api.get(OVERVIEW);
    expect(empty.status).toBe(200);
    expect(empty.body.counts).toEqual([]);
    expect(empty.body.waiting_longest).toEqual([]);
    expect(empty.body.failed_exports).toBe(0);
    expect(empty.body.exports_per_day).toHaveLength(30);
    expect(empty.body.exports_per_day.at(-1)).toEqual({ date: today(), exported: 0, failed: 0 });
    expect(empty.body.exports_per_day.every((d: any) => d.exported === 0 && d.failed === 0)).toBe(true);

    const [prepare, review1, review2] = await api.newRecords([
      { review_status: 'PREPARE' },
      { review_status: 'REVIEW' },
      { review_status: 'REVIEW', type: 'REIMBURSEMENT_EXPENSE_POST' },
    ]);
    const ready = await api.newRecords([
      { review_status: 'READY_FOR_EXPORT' },
      { review_status: 'READY_FOR_EXPORT' },
      { review_status: 'READY_FOR_EXPORT', type: 'BILL_EXPENSE' },
    ]);
    const report = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: ready[0].id, success: {} },
        { accounting_record_id: ready[1].id, failure: { error_message: 'Closed period' } },
        { accounting_record_id: ready[2].id, failure: { error_message: 'Unknown vendor' } },
      ],
    });
    expect(report.status, report.text).toBe(200);
    // Another account's records count nowhere here.
    const other = await t.ctx.as([...ADMIN]);
    await other.newRecords([{ review_status: 'REVIEW' }]);

    const res = await api.get(OVERVIEW);
    expect(res.status).toBe(200);
    expect(res.body.counts).toEqual([
      { review_status: 'EXPORTED', source_type: 'CARD', count: 1 },
      { review_status: 'PREPARE', source_type: 'CARD', count: 1 },
      { review_status: 'REVIEW', source_type: 'BILL', count: 1 },
      { review_status: 'REVIEW', source_type: 'CARD', count: 2 },
      { review_status: 'REVIEW', source_type: 'REIMBURSEMENT', count: 1 },
    ]);
    // Oldest change first: the three ingested first, then the two sent back by their failure.
    expect(res.body.waiting_longest.map((r: any) => r.id)).toEqual([
      prepare.id,
      review1.id,
      review2.id,
      ready[1].id,
      ready[2].id,
    ]);
    expect(res.body.waiting_longest[3]).toEqual((await api.get(`/v3/accounting/records/${ready[1].id}`)).body);
    expect(res.body.failed_exports).toBe(2);
    expect(res.body.exports_per_day.at(-1)).toEqual({ date: today(), exported: 1, failed: 2 });
    expect(res.body.exports_per_day.slice(0, 29).every((d: any) => d.exported === 0 && d.failed === 0)).toBe(true);
  });

  it('needs a scope that reads records', async () => {
    const api = await t.ctx.as(['fields.read']);
    const res = await api.get(OVERVIEW);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(
      errorBody('FORBIDDEN', {
        details: {
          required_scopes: [
            'accounting.record.read',
            'accounting.record.write',
            'accounting.record.review',
            'accounting.record.admin',
          ],
        },
      }),
    );
  });
});
