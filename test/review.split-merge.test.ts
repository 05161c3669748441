import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { chartAndRecord, coding, codingUrl, mergeUrl, recordAndHistory, REVIEWER, splitUrl } from './support/review.js';
import { storedRecord } from './support/stored.js';

describeEachDialect('review: splitting and merging lines', (t) => {
  it('splits a line into parts that sum to it, apportions the original amount, and merges them back', async () => {
    const { api, gl, record, economic } = await chartAndRecord(t.ctx, {
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
    const { api, record, economic, balancing } = await chartAndRecord(t.ctx);
    const before = await recordAndHistory(t.ctx, api, record.id);
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
    expect(await recordAndHistory(t.ctx, api, record.id)).toEqual(before);
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
      const before = await recordAndHistory(t.ctx, api, record.id);
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
      expect(await recordAndHistory(t.ctx, api, record.id)).toEqual(before);
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
