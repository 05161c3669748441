import { expect, it } from 'vitest';
import type { Api } from './support/api.js';
import { ADMIN, RECORDS } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { storedRecord } from './support/stored.js';

const REVIEWER = [...ADMIN, 'accounting.record.review', 'accounting.record.read'] as const;
const codingUrl = (id: string) => `/internal/v1/accounting/records/${id}/coding`;
const splitUrl = (id: string, line: string) => `/internal/v1/accounting/records/${id}/lines/${line}/split`;
const mergeUrl = (id: string) => `/internal/v1/accounting/records/${id}/lines/merge`;
const historyUrl = (id: string) => `/internal/v1/accounting/records/${id}/history`;

/** A chart of two fields (GL with remote ids, Department), and a record under review with its economic line. */
async function setup(ctx: TestContext, overrides: Record<string, unknown> = {}) {
  const api = await ctx.as(REVIEWER);
  const gl = await api.newCoding(
    'GL Account',
    [
      { value: '6010 Meals', remote_id: 'GL-6010' },
      { value: '6020 Travel', remote_id: 'GL-6020' },
      { value: '6999 Old', remote_id: 'GL-6999' },
    ],
    'GL',
  );
  const dept = await api.newCoding('Department', [{ value: 'Sales' }, { value: 'Ops' }]);
  const record = await api.newRecord({
    review_status: 'REVIEW',
    original_amount: { amount: 150, currency: 'EUR' },
    ...overrides,
  });
  const economic = record.line_items[0];
  const balancing = record.line_items[1];
  return { api, gl, dept, record, economic, balancing };
}

/** A line's coding as a record answers it. */
const coding = (field: any, value: any) => ({
  svc_field_id: field.svc_id,
  remote_field_id: field.remote_id,
  svc_field_value_id: value.svc_id,
  remote_field_value_id: value.remote_id,
  field_name: field.name,
  field_value_name: value.value,
  type: 'IDENTIFIER',
});

/** What must not move when a request is refused: the stored record and its history. */
async function snapshot(ctx: TestContext, api: Api, id: string) {
  return { stored: await storedRecord(ctx, api.accountId, id), history: (await api.get(historyUrl(id))).body };
}

describeEachDialect('review: coding lines', (t) => {
  it('codes an economic line by svc_id and by remote ids, answering both forms; the record moves on like any change', async () => {
    const { api, gl, dept, record, economic } = await setup(t.ctx);
    const res = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [
        {
          line_id: economic.id,
          field_values: [
            { field_remote_id: 'GL', remote_id: 'GL-6010' },
            { field_id: dept.field.svc_id, svc_id: dept.values[1].svc_id },
          ],
        },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const codings = [coding(gl.field, gl.values[0]), coding(dept.field, dept.values[1])];
    const expected = {
      ...record,
      version: 2,
      updated_at: expect.stringMatching(ISO_MICROS),
      line_items: [{ ...economic, accounting_field_values: codings }, record.line_items[1]],
    };
    expect(res.body).toEqual({ record: expected, single_entry: { ...expected, line_items: [expected.line_items[0]] } });
    expect(res.body.record.updated_at > record.updated_at).toBe(true);
    // The public API shows what the answer showed, in both forms.
    expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(res.body.record);
    expect((await api.get(`${RECORDS}/${record.id}`, { single_entry: 'true' })).body).toEqual(res.body.single_entry);
    const stored = await storedRecord(t.ctx, api.accountId, record.id);
    expect(stored).toMatchObject({ version: 2, uncoded_lines: 0 });
    expect(JSON.parse(stored!.line_items_json)).toEqual(res.body.record.line_items);

    // [] uncodes the line again.
    const uncoded = await api.post(codingUrl(record.id), {
      version: 2,
      lines: [{ line_id: economic.id, field_values: [] }],
    });
    expect(uncoded.status, uncoded.text).toBe(200);
    expect(uncoded.body.record.line_items[0].accounting_field_values).toEqual([]);
    expect(uncoded.body.record.version).toBe(3);
    expect(await storedRecord(t.ctx, api.accountId, record.id)).toMatchObject({ version: 3, uncoded_lines: 1 });
  });

  it('refuses disabled, deleted and unknown values, values of a disabled field, and names the line and value', async () => {
    const { api, gl, dept, record, economic } = await setup(t.ctx);
    await api.put(`/v1/fields/${gl.field.svc_id}/values`, {
      items: [{ svc_id: gl.values[2].svc_id, data: { is_disabled: true } }],
    });
    const deleted = await api.delete(`/v1/fields/${dept.field.svc_id}/values`, {
      items: [{ svc_id: dept.values[0].svc_id }],
    });
    expect(deleted.status).toBe(200);
    const before = await snapshot(t.ctx, api, record.id);
    const refs = [
      { field_id: gl.field.svc_id, svc_id: gl.values[2].svc_id },
      { field_id: dept.field.svc_id, svc_id: dept.values[0].svc_id },
      { field_remote_id: 'NOPE', remote_id: 'x' },
    ];
    const res = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: refs }],
    });
    expect(res.status).toBe(422);
    const at = (k: number) => ({ path: `/lines/0/field_values/${k}`, line_id: economic.id, ...refs[k] });
    expect(res.body).toEqual(
      errorBody('INVALID_CODING', {
        details: {
          errors: [
            { ...at(0), reason: 'VALUE_DISABLED', message: 'is the disabled value "6999 Old" of GL Account' },
            { ...at(1), reason: 'NOT_FOUND', message: 'is not a value of the account (unknown or deleted)' },
            { ...at(2), reason: 'NOT_FOUND', message: 'is not a value of the account (unknown or deleted)' },
          ],
        },
      }),
    );
    expect(res.body.message).toContain('/lines/0/field_values/0 is the disabled value "6999 Old" of GL Account');

    // A value of a disabled field.
    await api.put(`/v1/fields/${dept.field.svc_id}`, { is_disabled: true });
    const fieldOff = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: [{ field_id: dept.field.svc_id, svc_id: dept.values[1].svc_id }] }],
    });
    expect(fieldOff.status).toBe(422);
    expect(fieldOff.body.details.errors).toEqual([
      {
        path: '/lines/0/field_values/0',
        line_id: economic.id,
        field_id: dept.field.svc_id,
        svc_id: dept.values[1].svc_id,
        reason: 'FIELD_DISABLED',
        message: 'is a value of the disabled field Department',
      },
    ]);
    expect(await snapshot(t.ctx, api, record.id)).toEqual(before);
  });

  it('refuses the balancing line, unknown lines, a line named twice and a field coded twice, with every problem', async () => {
    const { api, gl, record, economic, balancing } = await setup(t.ctx);
    const before = await snapshot(t.ctx, api, record.id);
    const value = (k: number) => ({ field_id: gl.field.svc_id, svc_id: gl.values[k].svc_id });
    const lines = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [
        { line_id: balancing.id, field_values: [value(0)] },
        { line_id: 'accrli_nope', field_values: [] },
        { line_id: economic.id, field_values: [] },
        { line_id: economic.id, field_values: [] },
      ],
    });
    expect(lines.status).toBe(400);
    expect(lines.body.details.errors).toEqual([
      {
        path: '/lines/0/line_id',
        message: `is ${balancing.id}, the balancing line: only economic lines are coded, split or merged`,
      },
      { path: '/lines/1/line_id', message: 'is not a line of this record (accrli_nope)' },
      { path: '/lines/3/line_id', message: `names line ${economic.id} a second time` },
    ]);
    const twice = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: [value(0), value(1)] }],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.details.errors).toEqual([
      { path: '/lines/0/field_values/1', message: 'codes the field GL Account a second time: one value per field' },
    ]);
    expect(await snapshot(t.ctx, api, record.id)).toEqual(before);
  });

  it("refuses a stale version, a record out of review, and another account's record or values", async () => {
    const { api, gl, record, economic } = await setup(t.ctx);
    const body = (version: number) => ({
      version,
      lines: [{ line_id: economic.id, field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }] }],
    });
    const stale = await api.post(codingUrl(record.id), body(7));
    expect([stale.status, stale.body]).toEqual([
      409,
      errorBody('VERSION_CONFLICT', { details: { expected_version: 7, current_version: 1 } }),
    ]);

    const ready = await api.newRecord({ review_status: 'READY_FOR_EXPORT' });
    const locked = await api.post(codingUrl(ready.id), {
      ...body(1),
      lines: [{ line_id: ready.line_items[0].id, field_values: [] }],
    });
    expect([locked.status, locked.body]).toEqual([
      409,
      errorBody('RECORD_NOT_EDITABLE', {
        details: {
          accounting_record_id: ready.id,
          review_status: 'READY_FOR_EXPORT',
          editable_review_statuses: ['PREPARE', 'REVIEW'],
        },
      }),
    ]);

    const stranger = await t.ctx.as(REVIEWER);
    const before = await snapshot(t.ctx, api, record.id);
    const foreign = await stranger.post(codingUrl(record.id), body(1));
    expect([foreign.status, foreign.body]).toEqual([
      404,
      errorBody('NOT_FOUND', { details: { accounting_record_id: record.id } }),
    ]);
    // The stranger's own record, coded with this account's value: as if the value did not exist.
    const theirs = await stranger.newRecord({ review_status: 'PREPARE' });
    const borrowed = await stranger.post(codingUrl(theirs.id), {
      version: 1,
      lines: [
        {
          line_id: theirs.line_items[0].id,
          field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }],
        },
      ],
    });
    expect(borrowed.status).toBe(422);
    expect(borrowed.body.details.errors[0].reason).toBe('NOT_FOUND');
    expect(await snapshot(t.ctx, api, record.id)).toEqual(before);
  });

  it('answers 403 without a review scope', async () => {
    const { record, economic } = await setup(t.ctx);
    const reader = await t.ctx.as(['accounting.record.read', 'accounting.record.write'], record.account_id);
    const res = await reader.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: [] }],
    });
    expect(res.status).toBe(403);
  });
});

describeEachDialect('review: splitting and merging lines', (t) => {
  it('splits a line into parts that sum to it, apportions the original amount, and merges them back', async () => {
    const { api, gl, record, economic } = await setup(t.ctx, {
      amount: { amount: 100, currency: 'USD' },
      original_amount: { amount: 90.01, currency: 'EUR' },
    });
    const coded = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }] }],
    });
    expect(coded.status).toBe(200);
    const split = await api.post(splitUrl(record.id, economic.id), {
      version: 2,
      parts: [
        { amount: { amount: 33.33, currency: 'USD' } },
        {
          amount: { amount: 33.33, currency: 'USD' },
          memo: 'taxi',
          field_values: [{ field_remote_id: 'GL', remote_id: 'GL-6020' }],
        },
        { amount: { amount: 33.34, currency: 'USD' }, field_values: [] },
      ],
    });
    expect(split.status, split.text).toBe(200);
    const lines = split.body.record.line_items;
    expect(lines).toHaveLength(4);
    const id = expect.stringMatching(/^accrli_/);
    expect(lines.slice(0, 3)).toEqual([
      {
        id,
        type: 'DEBIT',
        amount: { amount: 33.33, currency: 'USD' },
        original_amount: { amount: 30, currency: 'EUR' },
        billing_amount: { amount: 33.33, currency: 'USD' },
        memo: null,
        accounting_field_values: [coding(gl.field, gl.values[0])],
        amortization: null,
      },
      {
        id,
        type: 'DEBIT',
        amount: { amount: 33.33, currency: 'USD' },
        original_amount: { amount: 30, currency: 'EUR' },
        billing_amount: { amount: 33.33, currency: 'USD' },
        memo: 'taxi',
        accounting_field_values: [coding(gl.field, gl.values[1])],
        amortization: null,
      },
      {
        id,
        type: 'DEBIT',
        amount: { amount: 33.34, currency: 'USD' },
        original_amount: { amount: 30.01, currency: 'EUR' },
        billing_amount: { amount: 33.34, currency: 'USD' },
        memo: null,
        accounting_field_values: [],
        amortization: null,
      },
    ]);
    expect(new Set(lines.map((l: any) => l.id)).size).toBe(4);
    expect(lines.map((l: any) => l.id)).not.toContain(economic.id);
    expect(lines[3]).toEqual(record.line_items[1]);
    expect(split.body.single_entry.line_items).toEqual(lines.slice(0, 3));
    expect(split.body.record.version).toBe(3);
    expect(await storedRecord(t.ctx, api.accountId, record.id)).toMatchObject({ version: 3, uncoded_lines: 1 });

    // Merge the first two back: sums, the coding they share (none: they differ), the first's memo.
    const merged = await api.post(mergeUrl(record.id), { version: 3, line_ids: [lines[1].id, lines[0].id] });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.record.line_items).toEqual([
      {
        id,
        type: 'DEBIT',
        amount: { amount: 66.66, currency: 'USD' },
        original_amount: { amount: 60, currency: 'EUR' },
        billing_amount: { amount: 66.66, currency: 'USD' },
        memo: null,
        accounting_field_values: [],
        amortization: null,
      },
      lines[2],
      lines[3],
    ]);
    // And the rest, coded as given.
    const whole = await api.post(mergeUrl(record.id), {
      version: 4,
      line_ids: merged.body.record.line_items.slice(0, 2).map((l: any) => l.id),
      memo: 'all of it',
      field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[1].svc_id }],
    });
    expect(whole.status, whole.text).toBe(200);
    expect(whole.body.record.line_items).toEqual([
      {
        id,
        type: 'DEBIT',
        amount: { amount: 100, currency: 'USD' },
        original_amount: { amount: 90.01, currency: 'EUR' },
        billing_amount: { amount: 100, currency: 'USD' },
        memo: 'all of it',
        accounting_field_values: [coding(gl.field, gl.values[1])],
        amortization: null,
      },
      record.line_items[1],
    ]);
    expect(await storedRecord(t.ctx, api.accountId, record.id)).toMatchObject({ version: 5, uncoded_lines: 0 });
  });

  it('refuses parts that do not sum to the line or are in another currency, and merges of fewer than two economic lines', async () => {
    const { api, record, economic, balancing } = await setup(t.ctx);
    const before = await snapshot(t.ctx, api, record.id);
    const short = await api.post(splitUrl(record.id, economic.id), {
      version: 1,
      parts: [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 71, currency: 'USD' } }],
    });
    expect(short.status).toBe(400);
    expect(short.body.details.errors).toEqual([
      { path: '/parts', message: "must sum to the line's amount 171.75 USD, not 171.00 USD" },
    ]);
    const currency = await api.post(splitUrl(record.id, economic.id), {
      version: 1,
      parts: [{ amount: { amount: 100, currency: 'EUR' } }, { amount: { amount: 71.755, currency: 'USD' } }],
    });
    expect(currency.status).toBe(400);
    expect(currency.body.details.errors).toEqual([
      { path: '/parts/0/amount/currency', message: "must be USD, the record's currency" },
      { path: '/parts/1/amount/amount', message: 'must have at most 2 decimal places for USD' },
    ]);
    const balancingSplit = await api.post(splitUrl(record.id, balancing.id), {
      version: 1,
      parts: [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 71.75, currency: 'USD' } }],
    });
    expect(balancingSplit.status).toBe(400);
    expect(balancingSplit.body.details.errors[0].path).toBe('/params/line_id');
    const one = await api.post(mergeUrl(record.id), { version: 1, line_ids: [economic.id] });
    expect(one.status).toBe(400);
    const withBalancing = await api.post(mergeUrl(record.id), { version: 1, line_ids: [economic.id, balancing.id] });
    expect(withBalancing.status).toBe(400);
    expect(withBalancing.body.details.errors[0].path).toBe('/line_ids/1');
    expect(await snapshot(t.ctx, api, record.id)).toEqual(before);
  });
});

describeEachDialect('review: records out of review', (t) => {
  it('refuses to code, split or merge a record READY_FOR_EXPORT or EXPORTED with 409 RECORD_NOT_EDITABLE, changing nothing', async () => {
    const api = await t.ctx.as(REVIEWER);
    const gl = await api.newCoding('GL Account', [{ value: '6010 Meals' }]);
    const twoLines = {
      lines: [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 71.75, currency: 'USD' } }],
    };
    const ready = await api.readyRecord(twoLines);
    const exported = await api.exportedRecord(twoLines);
    const cases = [
      { record: ready, review_status: 'READY_FOR_EXPORT', version: 1 },
      { record: exported, review_status: 'EXPORTED', version: 2 },
    ];
    for (const { record, review_status, version } of cases) {
      const [first, second] = record.line_items; // the two economic lines come first
      const before = await snapshot(t.ctx, api, record.id);
      expect(before.stored).toMatchObject({ review_status, version });
      const coding = {
        version,
        lines: [{ line_id: first.id, field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }] }],
      };
      const refused = {
        coding: await api.post(codingUrl(record.id), coding),
        split: await api.post(splitUrl(record.id, first.id), {
          version,
          parts: [{ amount: { amount: 60, currency: 'USD' } }, { amount: { amount: 40, currency: 'USD' } }],
        }),
        merge: await api.post(mergeUrl(record.id), { version, line_ids: [first.id, second.id] }),
      };
      for (const [operation, res] of Object.entries(refused)) {
        expect({ operation, status: res.status, body: res.body }).toEqual({
          operation,
          status: 409,
          body: errorBody('RECORD_NOT_EDITABLE', {
            details: {
              accounting_record_id: record.id,
              review_status,
              editable_review_statuses: ['PREPARE', 'REVIEW'],
            },
          }),
        });
      }
      // The stored record (its version included) and its history are as they were.
      expect(await snapshot(t.ctx, api, record.id)).toEqual(before);
    }

    // Moved back to REVIEW, the same coding is accepted: the refusals were the state's.
    await api.moveTo(exported.id, ['REVIEW']);
    const reopened = await api.post(codingUrl(exported.id), {
      version: 3,
      lines: [
        {
          line_id: exported.line_items[0].id,
          field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }],
        },
      ],
    });
    expect(reopened.status, reopened.text).toBe(200);
    expect(reopened.body.record.version).toBe(4);
  });
});
