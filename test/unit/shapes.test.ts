import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { AccountingRecordShape } from '../../src/modules/accounting/accounting.schemas.js';
import type { ShownRecordRow } from '../../src/modules/accounting/accounting.tables.js';
import { lineItemsOf, RECORD_TYPES, sourceTypeOf } from '../../src/modules/accounting/ledger.js';
import { REVIEW_STATUSES } from '../../src/modules/accounting/lifecycle.js';
import { SOURCE_STATUSES } from '../../src/modules/accounting/source-status.js';
import { FieldValueShape, type ShownValueRow } from '../../src/modules/field-values/field-values.schemas.js';
import { FieldShape } from '../../src/modules/fields/fields.schemas.js';
import type { FieldsTable } from '../../src/modules/fields/fields.tables.js';
import { eachDialect } from '../support/dialects.js';

// Every response shape is defined once (src/lib/shape.ts); its JSON text is written directly for pages and its
// object goes through the schema serializer for single answers. For any stored row, the text must be
// JSON.stringify of the object, byte for byte, and the object must be what the schema (and so the OpenAPI
// document) says.

// Text as the service stores it: any code point but U+0000 (the request guard refuses it, and lone surrogates).
const text = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !s.includes('\u0000'));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const micros = fc.integer({ min: 0, max: 4_102_444_800_000_000 });
const flag = fc.constantFrom(0, 1);

const ajv = addFormatsModule.default(new Ajv({ strict: false, allErrors: true }));
const conforms = (schema: object) => {
  const validate = ajv.compile(schema);
  return (value: unknown) => {
    if (!validate(value)) throw new Error(`${JSON.stringify(validate.errors)} for ${JSON.stringify(value)}`);
  };
};

describe('the accounting record shape', () => {
  const currency = fc.constantFrom('USD', 'EUR', 'JPY', 'BHD', 'CLF');
  const minor = fc.integer({ min: 1, max: 1e12 });
  const coding = fc.record({
    svc_field_id: text,
    remote_field_id: maybe(text),
    svc_field_value_id: text,
    remote_field_value_id: maybe(text),
    field_name: text,
    field_value_name: text,
    type: fc.constant('IDENTIFIER' as const),
  });
  const user = fc.record({
    id: text,
    email: text,
    first_name: text,
    last_name: text,
    role: fc.constantFrom('EMPLOYEE', 'BOOKKEEPER'),
    status: fc.constantFrom('ACTIVE', 'DISABLED'),
    account_id: text,
  });
  const vendor = fc.record({ id: text, name: text, email: maybe(text), website: maybe(text) });
  const receipt = fc.record({ id: text, download_uris: fc.array(text, { maxLength: 2 }) });
  const json = (arb: fc.Arbitrary<unknown>) => maybe(arb.map((v) => JSON.stringify(v)));
  const row: fc.Arbitrary<ShownRecordRow> = fc
    .record({
      id: text,
      type: fc.constantFrom(...RECORD_TYPES),
      source_id: maybe(text),
      review_status: fc.constantFrom(...REVIEW_STATUSES),
      currency,
      amount_minor: minor,
      original_currency: maybe(currency),
      original_amount_minor: minor,
      billing_currency: maybe(currency),
      billing_amount_minor: minor,
      status: fc.constantFrom(...SOURCE_STATUSES),
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
          billing_amount: maybe(minor),
          memo: maybe(text),
          accounting_field_values: fc.array(coding, { maxLength: 3 }),
        }),
        { maxLength: 4 },
      ),
      user_json: json(user),
      vendor_json: json(vendor),
      receipts_json: json(fc.array(receipt, { maxLength: 2 })),
      last_export: maybe(
        fc.record({
          status: fc.constantFrom('SUCCESS' as const, 'FAILURE' as const),
          reference_id: maybe(text),
          deep_link_url: maybe(text),
          error_message: maybe(text),
          reported_at: micros,
        }),
      ),
      version: fc.integer({ min: 1, max: 1e6 }),
      updated_at: micros,
    })
    .map(({ lines, last_export, ...r }) => ({
      ...r,
      source_type: sourceTypeOf(r.type),
      line_items_json: JSON.stringify(
        lineItemsOf(lines, r.currency, r.original_currency, r.billing_currency ?? r.currency),
      ),
      last_export_json: last_export === null ? null : JSON.stringify(last_export),
    }));

  it('writes every row as JSON.stringify of its object, in both line-item forms', () => {
    fc.assert(
      fc.property(row, fc.boolean(), (r, singleEntry) => {
        const ctx = { singleEntry, accountId: 'acct_shapes' };
        expect(AccountingRecordShape.toJson(r, ctx)).toBe(JSON.stringify(AccountingRecordShape.toObject(r, ctx)));
      }),
      { numRuns: 2000 },
    );
  });

  it('answers objects that the schema accepts, members in the schema order', () => {
    const check = conforms(AccountingRecordShape.schema);
    fc.assert(
      fc.property(row, fc.boolean(), (r, singleEntry) => {
        const answer = AccountingRecordShape.toObject(r, { singleEntry, accountId: 'acct_shapes' });
        check(answer);
        expect(Object.keys(answer)).toEqual(Object.keys(AccountingRecordShape.schema.properties));
      }),
      { numRuns: 500 },
    );
  });
});

const valueRow: fc.Arbitrary<ShownValueRow> = fc.record({
  svc_id: text,
  value: text,
  remote_id: maybe(text),
  value_id: maybe(text),
  is_disabled: flag,
  // Before 1970 too: SQLite's arithmetic truncates toward zero, where JavaScript's floors.
  updated_at: fc.integer({ min: -2_208_988_800_000_000, max: 4_102_444_800_000_000 }),
});

describe('the field value shape', () => {
  it('writes the same text as JSON.stringify of its object, whose form the schema accepts', () => {
    const check = conforms(FieldValueShape.schema);
    fc.assert(
      fc.property(valueRow, text, (r, fieldId) => {
        const answer = FieldValueShape.toObject(r, { fieldId });
        check(answer);
        expect(FieldValueShape.toJson(r, { fieldId })).toBe(JSON.stringify(answer));
      }),
      { numRuns: 2000 },
    );
  });
});

// SQLite writes pages of values itself (json_object); PostgreSQL's pages are written by JavaScript (toJson).
eachDialect(
  'the field value shape written by the database',
  () => {
    let db: Db | undefined;
    beforeAll(() => {
      db = openDatabase({ dialect: 'sqlite', path: ':memory:' });
    });
    afterAll(() => db?.close());

    it('is written byte for byte alike by SQLite (pages of values) and by JavaScript', async () => {
      const rows = fc.sample(valueRow, { numRuns: 300, seed: 11 });
      const fieldId = 'extended_field_"quoted"\\';
      const values = sql.join(
        rows.map(
          (r) => sql`(${r.svc_id}, ${r.value}, ${r.remote_id}, ${r.value_id}, ${r.is_disabled}, ${r.updated_at})`,
        ),
      );
      const column = (name: string) => sql.ref(`v.${name}`);
      const written = await sql<{ json: string }>`
      with v(svc_id, value, remote_id, value_id, is_disabled, updated_at) as (values ${values})
      select ${FieldValueShape.sqliteJson(column, { fieldId })} as json from v`.execute(db!.direct);
      expect(written.rows.map((r) => r.json)).toEqual(rows.map((r) => FieldValueShape.toJson(r, { fieldId })));
    });
  },
  { only: 'sqlite' },
);

describe('the field shape', () => {
  const row: fc.Arbitrary<FieldsTable> = fc.record({
    account_id: text,
    svc_id: text,
    name: text,
    field_group: fc.constantFrom('ACCOUNTING' as const, 'USER' as const, 'ERP' as const),
    remote_id: maybe(text),
    integration_id: maybe(text),
    is_disabled: flag,
    created_at: micros,
    updated_at: micros,
  });

  it('writes the same text as JSON.stringify of its object, whose form the schema accepts', () => {
    const check = conforms(FieldShape.schema);
    fc.assert(
      fc.property(row, (r) => {
        const answer = FieldShape.toObject(r, undefined);
        check(answer);
        expect(FieldShape.toJson(r, undefined)).toBe(JSON.stringify(answer));
        expect(answer).not.toHaveProperty('integration_id');
      }),
      { numRuns: 500 },
    );
  });
});
