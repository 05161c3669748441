import fc from 'fast-check';
import { expect, it } from 'vitest';
import { recordJson, recordRowToRecord } from '../../src/modules/accounting/accounting.dto.js';
import type { StoredRecord } from '../../src/modules/accounting/accounting.tables.js';
import { lineItemsOf, RECORD_TYPES, REVIEW_STATUSES, sourceTypeOf } from '../../src/modules/accounting/ledger.js';

// Record pages are written by recordJson; single records by the schema serializer from recordRowToRecord.
// Both must give the same JSON, member for member and byte for byte, for any stored row.
const text = fc.string({ unit: 'binary', maxLength: 12 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const micros = fc.integer({ min: 0, max: 4_102_444_800_000_000 });
const currency = fc.constantFrom('USD', 'EUR', 'JPY', 'BHD', 'CLF');
const minor = fc.integer({ min: -1e12, max: 1e12 });
const fieldValue = fc.record({
  svc_field_id: text,
  remote_field_id: maybe(text),
  svc_field_value_id: text,
  remote_field_value_id: maybe(text),
  field_name: text,
  field_value_name: text,
});
const json = (arb: fc.Arbitrary<unknown>) => maybe(arb.map((v) => JSON.stringify(v)));
const row: fc.Arbitrary<StoredRecord> = fc
  .record({
    account_id: text,
    id: text,
    type: fc.constantFrom(...RECORD_TYPES),
    source_id: maybe(text),
    review_status: fc.constantFrom(...REVIEW_STATUSES),
    currency,
    amount_minor: minor,
    original_currency: maybe(currency),
    original_amount_minor: minor,
    posted_at: micros,
    erp_posting_date: micros,
    due_at: maybe(micros),
    invoice_number: maybe(text),
    memo: maybe(text),
    lines: fc.array(
      fc.record({
        id: text,
        type: fc.constantFrom('DEBIT' as const, 'CREDIT' as const),
        amount: minor,
        original_amount: maybe(minor),
        memo: maybe(text),
        accounting_field_values: fc.array(fieldValue, { maxLength: 3 }),
      }),
      { maxLength: 4 },
    ),
    user_json: json(fc.record({ id: text, email: maybe(text), name: fc.jsonValue() })),
    vendor_json: json(fc.jsonValue()),
    receipts_json: json(fc.array(fc.record({ id: text, download_uris: fc.array(text) }))),
    last_export: maybe(
      fc.record({
        status: fc.constantFrom('SUCCESS', 'FAILURE'),
        reference_id: maybe(text),
        deep_link_url: maybe(text),
        error_message: maybe(text),
        reported_at: micros,
      }),
    ),
    version: fc.integer({ min: 1, max: 1e6 }),
    created_at: micros,
    updated_at: micros,
  })
  .map(({ lines, last_export, ...r }) => ({
    ...r,
    source_type: sourceTypeOf(r.type),
    line_items_json: JSON.stringify(lineItemsOf(lines, r.currency, r.original_currency)),
    last_export_json: last_export === null ? null : JSON.stringify(last_export),
  }));

it('writes a record as JSON.stringify of its answer object, for any stored row, in both line-item forms', () => {
  fc.assert(
    fc.property(row, fc.boolean(), (r, singleEntry) => {
      expect(recordJson(r, singleEntry)).toBe(JSON.stringify(recordRowToRecord(r, singleEntry)));
    }),
    { numRuns: 2000 },
  );
});
