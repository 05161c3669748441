import { expect, it } from 'vitest';
import { ADMIN, INGEST, item } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { storedRecordRows } from './support/stored.js';

describeEachDialect('accounting ingestion: validation', (t) => {
  it('reports every problem of a batch at once and writes nothing', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const res = await api.post(INGEST, {
      items: [
        item({ amount: { amount: 1.005, currency: 'USD' } }),
        item({ amount: { amount: 10, currency: 'XXX' } }),
        item({ amount: { amount: 1.5, currency: 'JPY' }, review_status: 'EXPORTED' }),
        item({ lines: [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 70, currency: 'USD' } }] }),
        item({ lines: [{ amount: { amount: 171.75, currency: 'EUR' } }] }),
        item({ type: 'NOPE', amount: { amount: -1, currency: 'USD' }, posted_at: '2026-06-11T09:09:05', colour: 'X' }),
        item({
          lines: [
            {
              amount: { amount: 171.75, currency: 'USD' },
              field_values: [
                { field_id: 'f', svc_id: 'a' },
                { field_id: 'f', svc_id: 'b' },
              ],
            },
          ],
        }),
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('INVALID_REQUEST');
    // schema problems first (the service checks run only on a well-formed body)
    expect(res.body.details.errors).toEqual(
      expect.arrayContaining([
        {
          path: '/items/2/review_status',
          message: 'must be one of: PREPARE, REVIEW, READY_FOR_EXPORT (got "EXPORTED")',
        },
        { path: '/items/5/type', message: expect.stringMatching(/^must be one of: CARD_EXPENSE_POST, /) },
        { path: '/items/5/amount/amount', message: expect.any(String) },
        { path: '/items/5/posted_at', message: 'must be an RFC 3339 date-time with a time zone' },
        { path: '/items/5/colour', message: expect.any(String) },
      ]),
    );
    const fixedSchema = await api.post(INGEST, {
      items: [
        item({ amount: { amount: 1.005, currency: 'USD' } }),
        item({ amount: { amount: 10, currency: 'XXX' } }),
        item({ amount: { amount: 1.5, currency: 'JPY' } }),
        item({ lines: [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 70, currency: 'USD' } }] }),
        item({ lines: [{ amount: { amount: 171.75, currency: 'EUR' } }] }),
        item({
          lines: [
            {
              amount: { amount: 171.75, currency: 'USD' },
              field_values: [
                { field_id: 'f', svc_id: 'a' },
                { field_id: 'f', svc_id: 'b' },
              ],
            },
          ],
        }),
        item(),
      ],
    });
    expect(fixedSchema.status).toBe(400);
    expect(fixedSchema.body.details.errors).toEqual([
      { path: '/items/0/amount/amount', message: 'must have at most 2 decimal places for USD' },
      { path: '/items/1/amount/currency', message: 'must be an ISO 4217 currency code' },
      { path: '/items/2/amount/amount', message: 'must be a whole number for JPY' },
      { path: '/items/3/lines', message: "must sum to the record's amount 171.75 USD, not 170.00 USD" },
      { path: '/items/4/lines/0/amount/currency', message: "must be USD, the record's currency" },
      { path: '/items/5/lines/0/field_values/1/field_id', message: 'codes the same field twice in one line' },
    ]);
    expect(await storedRecordRows(t.ctx, api.accountId)).toEqual([]);
  });

  it("unknown field values, or another account's, → 404 naming them, nothing written", async () => {
    const api = await t.ctx.as([...ADMIN]);
    const other = await t.ctx.as([...ADMIN]);
    const mine = await api.newCoding('Class', [{ value: 'A' }]);
    const theirs = await other.newCoding('Class', [{ value: 'B' }]);
    const wrongField = await api.newCoding('Location', [{ value: 'NYC' }]);
    const refs = [
      { field_id: mine.field.svc_id, svc_id: mine.values[0].svc_id },
      { field_id: theirs.field.svc_id, svc_id: theirs.values[0].svc_id },
      { field_id: mine.field.svc_id, svc_id: wrongField.values[0].svc_id },
    ];
    const res = await api.post(INGEST, {
      items: [
        item(),
        item({ lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [refs[0]] }] }),
        item({ lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: refs.slice(1, 2) }] }),
        item({ lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: refs.slice(2) }] }),
      ],
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody('NOT_FOUND', {
        message: expect.stringContaining(theirs.values[0].svc_id),
        details: { not_found_field_values: [refs[1], refs[2]] },
      }),
    );
    expect(await storedRecordRows(t.ctx, api.accountId)).toEqual([]);
  });

  it('needs the admin scope; 1 to 1000 items', async () => {
    const reader = await t.ctx.as(['accounting.record.write']);
    expect((await reader.post(INGEST, { items: [item()] })).status).toBe(403);
    const api = await t.ctx.as([...ADMIN]);
    expect((await api.post(INGEST, { items: [] })).body.details.errors).toEqual([
      { path: '/items', message: expect.any(String) },
    ]);
    const many = await api.post(INGEST, { items: Array.from({ length: 1001 }, () => item()) });
    expect(many.body.details.errors).toEqual([{ path: '/items', message: expect.any(String) }]);
    const full = await api.post(INGEST, { items: Array.from({ length: 1000 }, () => item()) });
    expect(full.status).toBe(200);
    expect(full.body.items).toHaveLength(1000);
  });
});
