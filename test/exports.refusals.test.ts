import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { EXPORTS, exportBook, exportChart, exported } from './support/exports.js';
import { errorBody } from './support/expect.js';
import { storedRecords } from './support/stored.js';

describeEachDialect('exports: refusals', (t) => {
  it('names each record not ready or with a line without a GL account, and unknown ids; nothing is exported or changed', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const chart = await exportChart(api);
    const { expense } = await exportBook(api, chart);
    const inReview = await api.newRecord({ review_status: 'REVIEW' });
    const uncoded = await api.readyRecord({
      lines: [
        { amount: { amount: 100, currency: 'USD' }, field_values: [chart.sales] },
        { amount: { amount: 71.75, currency: 'USD' }, field_values: [chart.meals] },
      ],
    });
    const before = await storedRecords(t.ctx, api.accountId);
    const res = await api.post(EXPORTS, {
      format: 'hledger',
      accounting_record_ids: [expense.id, inReview.id, uncoded.id],
    });
    const line = uncoded.line_items[0].id;
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      errorBody('EXPORT_REFUSED', {
        message: `2 records cannot be exported, so nothing was: ${inReview.id} is REVIEW, not READY_FOR_EXPORT; line 1 (${inReview.line_items[0].id}) has no GL account. ${uncoded.id} line 1 (${line}) has no GL account.`,
        details: {
          records: [
            {
              accounting_record_id: inReview.id,
              review_status: 'REVIEW',
              problems: ['is REVIEW, not READY_FOR_EXPORT', `line 1 (${inReview.line_items[0].id}) has no GL account`],
            },
            {
              accounting_record_id: uncoded.id,
              review_status: 'READY_FOR_EXPORT',
              problems: [`line 1 (${line}) has no GL account`],
            },
          ],
        },
      }),
    );
    // Ids the account does not have: 404, as export results answer them.
    const unknown = await api.post(EXPORTS, { format: 'hledger', accounting_record_ids: [expense.id, 'accr_nope'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(
      errorBody('NOT_FOUND', {
        message: 'No accounting record has the id accr_nope; nothing was exported.',
        details: { not_found_accounting_record_ids: ['accr_nope'] },
      }),
    );
    // … as the route's OpenAPI declares, with its other answers.
    const doc = (await t.ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths[EXPORTS].post.responses['404']).toMatchObject({
      description: expect.stringContaining('NOT_FOUND'),
    });
    // Every ready record by date range: the uncoded one refuses the file; left out, the file is the others'.
    const all = await api.post(EXPORTS, { format: 'beancount' });
    expect(all.status).toBe(422);
    expect(all.body.details.records.map((r: any) => r.accounting_record_id)).toEqual([uncoded.id]);
    const rest = await exported(api, { format: 'hledger', exclude_accounting_record_ids: [uncoded.id] });
    expect(rest).toContain(`svc_record:${expense.id}`);
    expect(rest).not.toContain(uncoded.id);
    expect(await storedRecords(t.ctx, api.accountId)).toEqual(before);
  });

  it('refuses a bad request: ids with a date range, a reversed range, columns outside CSV, a bad account path', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { format: 'hledger', accounting_record_ids: ['a'], posted_from: '2026-01-01' },
        '/body/accounting_record_ids',
        'cannot be given with posted_from or posted_to',
      ],
      [
        { format: 'hledger', posted_from: '2026-02-01', posted_to: '2026-01-31' },
        '/body/posted_to',
        'must be on or after posted_from',
      ],
      [{ format: 'hledger', posted_from: '2026-02-30' }, '/body/posted_from', 'must be a calendar day, YYYY-MM-DD'],
      [{ format: 'beancount', columns: ['date'] }, '/body/columns', 'is taken only with format csv'],
    ];
    for (const [body, path, message] of cases) {
      const res = await api.post(EXPORTS, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(
        errorBody('INVALID_REQUEST', {
          message: `The request is invalid: ${path} ${message}.`,
          details: { errors: [{ path, message }] },
        }),
      );
    }
    const schema = await api.post(EXPORTS, { format: 'ledger', balancing_accounts: { BANK: 'bank' } });
    expect(schema.status).toBe(400);
    expect(schema.body.error_code).toBe('INVALID_REQUEST');
    expect(schema.body.details.errors.map((e: any) => e.path).sort()).toEqual(['/balancing_accounts/BANK', '/format']);
  });

  it('takes the read or write scope of records; other scopes are refused', async () => {
    const reader = await t.ctx.as(['accounting.record.read']);
    expect((await reader.post(EXPORTS, { format: 'csv' })).status).toBe(200);
    const other = await t.ctx.as(['fields.write']);
    expect((await other.post(EXPORTS, { format: 'csv' })).status).toBe(403);
  });
});
