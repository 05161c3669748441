import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { ADMIN, expectBalanced, INGEST, ISO_MICROS, item, newCoding, newRecord, RECORDS, storedRecord } from './support/accounting.js';

describeEachDialect('accounting ingestion /internal/v1/accounting/records', (t) => {
  it('creates a double-entry record with coded lines, as the reference record looks', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const gl = await newCoding(api, 'GL Account', [{ value: '7500 Other G&A' }, { value: '6000 Travel', remote_id: 'GL-6000' }], 'GL_ACCOUNT');
    const record = await newRecord(api, {
      source_id: 'expense_1',
      original_amount: { amount: 160, currency: 'EUR' },
      memo: 'Client lunch',
      user: { id: 'cuuser_1', email: 'a@example.invalid', first_name: 'Ada', last_name: 'L', role: 'EMPLOYEE', status: 'ACTIVE' },
      vendor: { id: 'v_1', name: 'Vendor H', website: 'https://example.invalid/' },
      receipts: [{ id: 'r_1', download_uris: ['https://example.invalid/r_1.pdf'] }],
      lines: [
        { amount: { amount: 100, currency: 'USD' }, memo: 'food', field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }] },
        { amount: { amount: 71.75, currency: 'USD' }, field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[1].svc_id }] },
      ],
    });
    expect(record).toEqual({
      id: expect.stringMatching(/^accr_[0-9a-z]{26}$/),
      amount: { amount: 171.75, currency: 'USD' },
      original_amount: { amount: 160, currency: 'EUR' },
      type: 'CARD_EXPENSE_POST',
      source_type: 'CARD',
      source_id: 'expense_1',
      review_status: 'PREPARE',
      posted_at: '2026-06-11T09:09:05.840865Z',
      erp_posting_date: '2026-06-11T09:09:05.840865Z',
      due_at: null,
      updated_at: expect.stringMatching(ISO_MICROS),
      invoice_number: null,
      memo: 'Client lunch',
      line_items: [
        {
          id: expect.stringMatching(/^accrli_[0-9a-z]{26}$/),
          type: 'DEBIT',
          amount: { amount: 100, currency: 'USD' },
          original_amount: { amount: 93.16, currency: 'EUR' },
          memo: 'food',
          accounting_field_values: [
            {
              svc_field_id: gl.field.svc_id,
              remote_field_id: 'GL_ACCOUNT',
              svc_field_value_id: gl.values[0].svc_id,
              remote_field_value_id: null,
              field_name: 'GL Account',
              field_value_name: '7500 Other G&A',
            },
          ],
        },
        {
          id: expect.stringMatching(/^accrli_/),
          type: 'DEBIT',
          amount: { amount: 71.75, currency: 'USD' },
          original_amount: { amount: 66.84, currency: 'EUR' },
          memo: null,
          accounting_field_values: [
            expect.objectContaining({ svc_field_value_id: gl.values[1].svc_id, remote_field_value_id: 'GL-6000', field_value_name: '6000 Travel' }),
          ],
        },
        {
          id: expect.stringMatching(/^accrli_/),
          type: 'CREDIT',
          amount: { amount: 171.75, currency: 'USD' },
          original_amount: { amount: 160, currency: 'EUR' },
          memo: null,
          accounting_field_values: [],
        },
      ],
      receipts: [{ id: 'r_1', download_uris: ['https://example.invalid/r_1.pdf'] }],
      user: { id: 'cuuser_1', email: 'a@example.invalid', first_name: 'Ada', last_name: 'L', role: 'EMPLOYEE', status: 'ACTIVE' },
      vendor: { id: 'v_1', name: 'Vendor H', website: 'https://example.invalid/' },
      version: 1,
      last_export_result: null,
    });
    expectBalanced(record);
    expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(record);
    const row = await storedRecord(t.ctx, api.accountId, record.id);
    expect(Number(row!.amount_minor)).toBe(17175);
    expect(Number(row!.original_amount_minor)).toBe(16000);
  });
});
