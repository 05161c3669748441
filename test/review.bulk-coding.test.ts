import { expect, it } from 'vitest';
import { RECORDS } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { ISO_MICROS } from './support/expect.js';
import { chartAndRecord, coding, historyUrl, recordAndHistory, REVIEWER } from './support/review.js';
import { storedRecord } from './support/stored.js';

const BULK_CODING = '/internal/v1/accounting/records/coding';

/** Three records under review of one account, with its chart (GL, Department). */
async function threeRecords(t: { ctx: Parameters<typeof chartAndRecord>[0] }) {
  const chart = await chartAndRecord(t.ctx);
  const more = [
    await chart.api.newRecord({ review_status: 'PREPARE' }),
    await chart.api.newRecord({ review_status: 'REVIEW' }),
  ];
  return { ...chart, records: [chart.record, ...more] };
}

const item = (record: any, version: number, refs: { field_id: string; svc_id: string }[]) => ({
  record_id: record.id,
  version,
  lines: [{ line_id: record.line_items[0].id, field_values: refs }],
});

const ref = (coded: any, k: number) => ({ field_id: coded.field.svc_id, svc_id: coded.values[k].svc_id });

async function eventsOf(api: Api, id: string) {
  return (await api.get(historyUrl(id))).body.items as any[];
}

describeEachDialect('review: bulk coding', (t) => {
  it('codes every record, each as its own coding does: versions, answers, stored state and history', async () => {
    const { api, gl, dept, records } = await threeRecords(t);
    const res = await api.post(BULK_CODING, {
      items: records.map((r, k) => item(r, 1, [ref(gl, k % 2), ref(dept, 1)])),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((i: any) => [i.record_id, i.status, i.record.version])).toEqual(
      records.map((r) => [r.id, 'SAVED', 2]),
    );
    for (const [k, r] of records.entries()) {
      const saved = res.body.items[k].record;
      const codings = [coding(gl.field, gl.values[k % 2]), coding(dept.field, dept.values[1])];
      expect(saved.updated_at).toMatch(ISO_MICROS);
      expect(saved.line_items[0].accounting_field_values).toEqual(codings);
      expect(saved).toEqual({
        ...r,
        version: 2,
        updated_at: saved.updated_at,
        line_items: [{ ...r.line_items[0], accounting_field_values: codings }, ...r.line_items.slice(1)],
      });
      // The public API shows what the answer showed; the store holds it.
      expect((await api.get(`${RECORDS}/${r.id}`)).body).toEqual(saved);
      expect(await storedRecord(t.ctx, api.accountId, r.id)).toMatchObject({ version: 2, uncoded_lines: 0 });
      // History as the one-record coding writes it.
      const events = await eventsOf(api, r.id);
      expect(events.at(-1)).toMatchObject({
        version: 2,
        type: 'CODED',
        occurred_at: saved.updated_at,
        actor: { type: 'client', id: api.clientId },
        changes: { lines: [{ line_id: r.line_items[0].id, before: [], after: codings }] },
      });
    }
    // Each record's change has its own updated_at, in request order.
    const times = res.body.items.map((i: any) => i.record.updated_at);
    expect([...times].sort()).toEqual(times);
    expect(new Set(times).size).toBe(3);
  });

  it('refuses a stale record on its item and saves the others', async () => {
    const { api, gl, records } = await threeRecords(t);
    // The middle record moves on meanwhile (another reviewer's coding).
    const other = await api.post(BULK_CODING, { items: [item(records[1], 1, [ref(gl, 2)])] });
    expect(other.body.items[0].status).toBe('SAVED');
    const before = await recordAndHistory(t.ctx, api, records[1].id);
    const res = await api.post(BULK_CODING, { items: records.map((r) => item(r, 1, [ref(gl, 0)])) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.items[1]).toEqual({
      record_id: records[1].id,
      status: 'REFUSED',
      error: {
        error_code: 'VERSION_CONFLICT',
        message: 'The record is at version 2, not 1.',
        details: { expected_version: 1, current_version: 2 },
      },
    });
    expect([res.body.items[0].status, res.body.items[2].status]).toEqual(['SAVED', 'SAVED']);
    expect([res.body.items[0].record.version, res.body.items[2].record.version]).toEqual([2, 2]);
    expect(await recordAndHistory(t.ctx, api, records[1].id)).toEqual(before);
    for (const k of [0, 2]) {
      const stored = await storedRecord(t.ctx, api.accountId, records[k].id);
      expect(stored).toMatchObject({ version: 2, uncoded_lines: 0 });
      expect(JSON.parse(stored!.line_items_json)[0].accounting_field_values).toEqual([coding(gl.field, gl.values[0])]);
    }
  });

  it("refuses another account's record as not found and touches nothing of it; refuses invalid values and records out of review", async () => {
    const { api, gl, records } = await threeRecords(t);
    const stranger = await t.ctx.as(REVIEWER);
    const theirs = await stranger.newRecord({ review_status: 'REVIEW' });
    const theirsBefore = await recordAndHistory(t.ctx, stranger, theirs.id);
    await api.put(`/v1/fields/${gl.field.svc_id}/values`, {
      items: [{ svc_id: gl.values[2].svc_id, data: { is_disabled: true } }],
    });
    const ready = await api.newRecord({ review_status: 'READY_FOR_EXPORT' });
    const invalidBefore = await recordAndHistory(t.ctx, api, records[1].id);
    const res = await api.post(BULK_CODING, {
      items: [
        item(records[0], 1, [ref(gl, 0)]),
        item(theirs, 1, [ref(gl, 0)]),
        item(records[1], 1, [ref(gl, 2)]),
        item(ready, 1, []),
        item(records[2], 1, [ref(gl, 1)]),
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.items.map((i: any) => [i.status, i.error?.error_code])).toEqual([
      ['SAVED', undefined],
      ['REFUSED', 'NOT_FOUND'],
      ['REFUSED', 'INVALID_CODING'],
      ['REFUSED', 'RECORD_NOT_EDITABLE'],
      ['SAVED', undefined],
    ]);
    expect(res.body.items[1].error).toEqual({
      error_code: 'NOT_FOUND',
      message: `Accounting record ${theirs.id} not found.`,
      details: { accounting_record_id: theirs.id },
    });
    expect(res.text).not.toContain(stranger.accountId);
    expect(res.body.items[2].error.details).toEqual({
      errors: [
        {
          path: '/lines/0/field_values/0',
          line_id: records[1].line_items[0].id,
          ...ref(gl, 2),
          reason: 'VALUE_DISABLED',
          message: 'is the disabled value "6999 Old" of GL Account',
        },
      ],
    });
    expect(res.body.items[3].error.details).toEqual({
      accounting_record_id: ready.id,
      review_status: 'READY_FOR_EXPORT',
      editable_review_statuses: ['PREPARE', 'REVIEW'],
    });
    expect(await recordAndHistory(t.ctx, stranger, theirs.id)).toEqual(theirsBefore);
    expect(await recordAndHistory(t.ctx, api, records[1].id)).toEqual(invalidBefore);
    expect(await storedRecord(t.ctx, api.accountId, records[2].id)).toMatchObject({ version: 2, uncoded_lines: 0 });

    // A line that is not the record's is refused on its item too (400's error, the item's own paths).
    const lines = await api.post(BULK_CODING, {
      items: [
        { record_id: records[1].id, version: 1, lines: [{ line_id: records[0].line_items[0].id, field_values: [] }] },
      ],
    });
    expect(lines.body.items[0].error).toMatchObject({
      error_code: 'INVALID_REQUEST',
      details: {
        errors: [{ path: '/lines/0/line_id', message: expect.stringContaining('is not a line of this record') }],
      },
    });
  });

  it('honours Idempotency-Key: a replay answers the stored result and codes nothing twice', async () => {
    const { api, gl, records } = await threeRecords(t);
    const headers = { 'idempotency-key': `bulk-${records[0].id}` };
    const body = { items: [item(records[0], 1, [ref(gl, 0)]), item(records[1], 5, [ref(gl, 0)])] };
    const first = await api.post(BULK_CODING, body, headers);
    expect(first.status, first.text).toBe(200);
    expect(first.body.items.map((i: any) => i.status)).toEqual(['SAVED', 'REFUSED']);
    const after = await recordAndHistory(t.ctx, api, records[0].id);
    const retry = await api.post(BULK_CODING, body, headers);
    expect([retry.status, retry.headers['idempotent-replayed'], retry.body]).toEqual([200, 'true', first.body]);
    expect(await recordAndHistory(t.ctx, api, records[0].id)).toEqual(after);
    const reused = await api.post(BULK_CODING, { items: [item(records[2], 1, [])] }, headers);
    expect([reused.status, reused.body.error_code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
  });

  it('answers 400 with every problem to bad bodies, and 403 without a review scope; nothing changes', async () => {
    const { api, gl, records } = await threeRecords(t);
    const before = await Promise.all(records.map((r) => recordAndHistory(t.ctx, api, r.id)));
    const bad = async (body: unknown) => {
      const res = await api.post(BULK_CODING, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error_code).toBe('INVALID_REQUEST');
      return res.body.details.errors.map((e: any) => e.path);
    };
    expect(await bad({ items: [] })).toEqual(['/items']);
    expect(await bad({})).toEqual(['/items']);
    const many = Array.from({ length: 201 }, () => item(records[0], 1, []));
    expect(await bad({ items: many })).toEqual(['/items']);
    expect(await bad({ items: [item(records[0], 1, [ref(gl, 0)]), item(records[0], 1, [])] })).toEqual([
      '/items/1/record_id',
    ]);
    expect(
      await bad({
        items: [
          { ...item(records[0], 0, []), extra: 1 },
          { record_id: records[1].id, version: 1, lines: [] },
        ],
      }),
    ).toEqual(['/items/0/extra', '/items/0/version', '/items/1/lines']);
    expect(await Promise.all(records.map((r) => recordAndHistory(t.ctx, api, r.id)))).toEqual(before);
    const reader = await t.ctx.as(['accounting.record.read', 'accounting.record.write'], api.accountId);
    expect((await reader.post(BULK_CODING, { items: [item(records[0], 1, [])] })).status).toBe(403);
  });
});
