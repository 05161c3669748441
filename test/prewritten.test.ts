import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import fc from 'fast-check';
import type { TSchema } from 'typebox';
import { expect, it } from 'vitest';
import { RecordPage } from '../src/modules/accounting/accounting.schemas.js';
import { RecordSearchPage } from '../src/modules/accounting/search.schemas.js';
import { FieldValuePage } from '../src/modules/field-values/field-values.schemas.js';
import { EventFeedPage } from '../src/modules/webhooks/events.schemas.js';
import { ADMIN, INGEST, item, PEOPLE, RECORDS } from './support/accounting.js';
import type { Api, Response } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { valuesUrl } from './support/field-values.js';
import { EVENTS } from './support/webhooks.js';

/**
 * The one pre-written path (src/lib/prewritten.ts): pages of records, of the review queue's search, of values (on
 * SQLite written by the database itself) and of the event feed are written as text, not by the route's serializer.
 * For random stored rows, on each dialect, each page's bytes must be what the route's response schema serializer
 * (fast-json-stringify, as Fastify runs it) writes for the same answer as an object: the same members, the same
 * order, the same escapes and numbers.
 */

// Text as the service stores it: any code point but U+0000 (refused on the way in, as lone surrogates are).
const text = fc
  .string({ unit: 'binary', minLength: 1, maxLength: 24 })
  .filter((s) => !s.includes('\u0000') && s.isWellFormed() && s.trim().length > 0);
const amount = fc.integer({ min: 1, max: 99_999_999 }).map((cents) => cents / 100);

describeEachDialect('pre-written answers equal the schema serializer, byte for byte', (t) => {
  /** What the route's serializer writes for `object` (the shared schemas as the app holds them). */
  const serializerOf = (schema: TSchema) =>
    SerializerSelector()(t.ctx.app.getSchemas(), {})({ schema, method: 'GET', url: '/', httpStatus: '200' });

  const expectSerializerBytes = (schema: TSchema, body: string) => {
    const serialize = serializerOf(schema);
    const expected = serialize(JSON.parse(body));
    let at = 0;
    while (at < body.length && body[at] === expected[at]) at++;
    // Where they part, for a reader of a failure.
    expect(body.slice(Math.max(0, at - 120), at + 80)).toBe(expected.slice(Math.max(0, at - 120), at + 80));
    expect(body).toBe(expected);
  };

  async function randomRecords(api: Api, seed: number) {
    const items = fc.sample(
      fc.record({
        memo: text,
        amount,
        currency: fc.constantFrom('USD', 'EUR', 'JPY', 'BHD'),
        vendor: text,
        invoice: fc.option(text, { nil: undefined }),
        type: fc.constantFrom('CARD_EXPENSE_POST', 'BILL_EXPENSE', 'REIMBURSEMENT_EXPENSE_POST', 'CARD_PAYMENT'),
      }),
      { numRuns: 60, seed },
    );
    const res = await api.create(INGEST, {
      items: items.map((r) =>
        item({
          type: r.type,
          amount: { amount: r.currency === 'JPY' ? Math.round(r.amount) || 1 : r.amount, currency: r.currency },
          memo: r.memo,
          // Every optional member of the user and the vendor too, each where the serializer writes it.
          vendor: {
            id: 'v_2',
            name: r.vendor,
            contact_name: r.memo,
            email: 'v@example.invalid',
            phone: null,
            website: null,
          },
          user: { ...PEOPLE.user, department_id: 'd_1', department_name: r.vendor, title_name: r.memo },
          receipts: PEOPLE.receipts,
          ...(r.invoice ? { invoice_number: r.invoice } : {}),
        }),
      ),
    });
    expect(res.status, res.text).toBe(200);
  }

  it('pages of records (the public query, both entry forms) and of the review queue search', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.record.read', 'accounting.record.review']);
    await randomRecords(api, 7);
    const queries: Record<string, string>[] = [
      { limit: '25' },
      { limit: '25', single_entry: 'true' },
      { source_type: 'BILL' },
    ];
    for (const query of queries) {
      let cursor: string | null = null;
      do {
        const page: Response = await api.get(RECORDS, { ...query, ...(cursor ? { cursor } : {}) });
        expect(page.status, page.text).toBe(200);
        expectSerializerBytes(RecordPage, page.text);
        cursor = page.body.next_cursor;
      } while (cursor);
    }
    for (const sort of ['updated_at', '-amount', 'posted_at']) {
      const page = await api.get('/internal/v1/accounting/records', { sort, limit: '40' });
      expect(page.status, page.text).toBe(200);
      expectSerializerBytes(RecordSearchPage, page.text);
    }
  });

  it('pages of field values, written by SQLite itself or by their shape', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write', 'field_values.read']);
    const fieldId = await api.newField();
    const values = fc.sample(
      fc.record({ value: text, remote_id: fc.option(text, { nil: null }), is_disabled: fc.boolean() }),
      { numRuns: 120, seed: 3 },
    );
    // remote_id unique within the field: numbered.
    const items = values.map((v, i) => ({ ...v, remote_id: v.remote_id === null ? null : `${i}:${v.remote_id}` }));
    const made = await api.create(valuesUrl(fieldId), { items });
    expect(made.status, made.text).toBe(200);
    let cursor: string | null = null;
    do {
      const page: Response = await api.get(valuesUrl(fieldId), { limit: '50', ...(cursor ? { cursor } : {}) });
      expect(page.status, page.text).toBe(200);
      expectSerializerBytes(FieldValuePage, page.text);
      cursor = page.body.next_cursor;
    } while (cursor);
  });

  it('pages of the event feed', async () => {
    const api = await t.ctx.as([...ADMIN, 'events.read', 'field_values.write', 'fields.write']);
    await randomRecords(api, 19);
    const fieldId = await api.newField();
    await api.create(valuesUrl(fieldId), { items: [{ value: 'a "quoted" \\ value ✓' }] });
    const page = await api.get(EVENTS, { limit: '100' });
    expect(page.status, page.text).toBe(200);
    expect(page.body.items.length).toBeGreaterThan(0);
    expectSerializerBytes(EventFeedPage, page.text);
  });
});
