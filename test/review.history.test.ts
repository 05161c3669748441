import { expect, it } from 'vitest';
import type { Api, Response } from './support/api.js';
import { EXPORT_RESULTS, RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { BULK, coding, codingUrl, historyUrl, mergeUrl, REVIEWER, splitUrl, usd } from './support/review.js';

const EVENT_ID = /^accrev_[0-9a-z]+$/;

/** The record's updated_at as the public API shows it now. */
const updatedAt = async (api: Api, id: string): Promise<string> => (await api.get(`${RECORDS}/${id}`)).body.updated_at;

/** Every page of a record's history, `limit` at a time. */
async function pages(api: Api, id: string, limit: number) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: Response = await api.get(historyUrl(id), { limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(res.status, res.text).toBe(200);
    out.push(res.body);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

describeEachDialect('review: record history', (t) => {
  it('answers every change in version order: what changed, when (the updated_at it set) and who', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const reviewer = await t.ctx.as(['accounting.record.review'], api.accountId);
    const gl = await api.newCoding(
      'GL Account',
      [
        { value: '6010 Meals', remote_id: 'GL-6010' },
        { value: '6020 Travel', remote_id: 'GL-6020' },
      ],
      'GL',
    );
    const record = await api.newRecord({ review_status: 'REVIEW', amount: usd(100) });
    const line = record.line_items[0];
    const times: string[] = [record.updated_at];

    const coded = await reviewer.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: line.id, field_values: [{ field_remote_id: 'GL', remote_id: 'GL-6010' }] }],
    });
    expect(coded.status, coded.text).toBe(200);
    times.push(coded.body.record.updated_at);
    const split = await reviewer.post(splitUrl(record.id, line.id), {
      version: 2,
      parts: [
        { amount: usd(60) },
        { amount: usd(40), field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[1].svc_id }] },
      ],
    });
    expect(split.status, split.text).toBe(200);
    times.push(split.body.record.updated_at);
    const [part1, part2] = split.body.record.line_items;
    const merged = await api.post(mergeUrl(record.id), { version: 3, line_ids: [part1.id, part2.id] });
    expect(merged.status, merged.text).toBe(200);
    times.push(merged.body.record.updated_at);
    const whole = merged.body.record.line_items[0];

    const ready = await api.moveTo(record.id, ['READY_FOR_EXPORT']);
    times.push(ready.updated_at);
    const failed = await api.post(EXPORT_RESULTS, {
      results: [{ accounting_record_id: record.id, failure: { error_message: 'GL period closed' } }],
    });
    expect(failed.status, failed.text).toBe(200);
    times.push(await updatedAt(api, record.id));
    const again = await reviewer.post(BULK, { review_status: 'READY_FOR_EXPORT', records: [{ id: record.id }] });
    expect(again.status, again.text).toBe(200);
    times.push(again.body.items[0].updated_at);
    const succeeded = await api.post(EXPORT_RESULTS, {
      results: [
        {
          accounting_record_id: record.id,
          success: { reference_id: 'erp_9', deep_link_url: 'https://erp.example/txn/9' },
        },
      ],
    });
    expect(succeeded.status, succeeded.text).toBe(200);
    times.push(await updatedAt(api, record.id));
    const reopened = await reviewer.post(BULK, { review_status: 'REVIEW', records: [{ id: record.id, version: 8 }] });
    expect(reopened.status, reopened.text).toBe(200);
    times.push(reopened.body.items[0].updated_at);

    const event = (client: Api, type: string, changes: object) => ({ client, type, changes });
    const moved = (from: string, to: string) => ({ review_status: { from, to } });
    const expected = [
      event(api, 'INGESTED', { review_status: 'REVIEW' }),
      event(reviewer, 'CODED', {
        lines: [{ line_id: line.id, before: [], after: [coding(gl.field, gl.values[0])] }],
      }),
      event(reviewer, 'SPLIT', {
        line_id: line.id,
        amount: usd(100),
        into: [
          { line_id: part1.id, amount: usd(60), accounting_field_values: [coding(gl.field, gl.values[0])] },
          { line_id: part2.id, amount: usd(40), accounting_field_values: [coding(gl.field, gl.values[1])] },
        ],
      }),
      event(api, 'MERGED', {
        line_ids: [part1.id, part2.id],
        into: { line_id: whole.id, amount: usd(100), accounting_field_values: [] },
      }),
      event(api, 'MOVED', moved('REVIEW', 'READY_FOR_EXPORT')),
      event(api, 'EXPORT_FAILED', { ...moved('READY_FOR_EXPORT', 'REVIEW'), error_message: 'GL period closed' }),
      event(reviewer, 'MOVED', moved('REVIEW', 'READY_FOR_EXPORT')),
      event(api, 'EXPORT_SUCCEEDED', {
        ...moved('READY_FOR_EXPORT', 'EXPORTED'),
        reference_id: 'erp_9',
        deep_link_url: 'https://erp.example/txn/9',
      }),
      event(reviewer, 'MOVED', moved('EXPORTED', 'REVIEW')),
    ].map(({ client, type, changes }, k) => ({
      event_id: expect.stringMatching(EVENT_ID),
      version: k + 1,
      type,
      occurred_at: times[k],
      actor: { type: 'client', id: client.clientId },
      changes,
    }));
    const res = await reviewer.get(historyUrl(record.id));
    expect([res.status, res.body]).toEqual([200, { items: expected, has_next_page: false, next_cursor: null }]);
    expect(new Set(res.body.items.map((e: any) => e.event_id)).size).toBe(9);
    expect([...times].sort()).toEqual(times);
    expect(await updatedAt(api, record.id)).toBe(times[8]);
    // A client with the read scope sees the same.
    const reader = await t.ctx.as(['accounting.record.read'], api.accountId);
    expect((await reader.get(historyUrl(record.id))).body).toEqual(res.body);
  });

  it('pages by limit and cursor; cursors of other records, lists or accounts and tampered ones → 400 INVALID_CURSOR', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const record = await api.newRecord();
    await api.moveTo(record.id, ['REVIEW', 'PREPARE', 'REVIEW', 'READY_FOR_EXPORT']);
    const full = await api.get(historyUrl(record.id));
    expect(full.body.next_cursor).toBeNull();
    expect(full.body.items.map((e: any) => [e.version, e.type, e.changes])).toEqual([
      [1, 'INGESTED', { review_status: 'PREPARE' }],
      [2, 'MOVED', { review_status: { from: 'PREPARE', to: 'REVIEW' } }],
      [3, 'MOVED', { review_status: { from: 'REVIEW', to: 'PREPARE' } }],
      [4, 'MOVED', { review_status: { from: 'PREPARE', to: 'REVIEW' } }],
      [5, 'MOVED', { review_status: { from: 'REVIEW', to: 'READY_FOR_EXPORT' } }],
    ]);
    const byTwo = await pages(api, record.id, 2);
    expect(byTwo.map((p) => p.items)).toEqual([
      full.body.items.slice(0, 2),
      full.body.items.slice(2, 4),
      full.body.items.slice(4),
    ]);
    expect(byTwo.map((p) => typeof p.next_cursor)).toEqual(['string', 'string', 'object']);
    // A page that ends exactly at the last event says so.
    expect((await pages(api, record.id, 5)).map((p) => p.items)).toEqual([full.body.items]);
    expect((await pages(api, record.id, 4)).map((p) => p.items.length)).toEqual([4, 1]);

    const cursor = byTwo[0].next_cursor as string;
    const other = await api.newRecord();
    await api.moveTo(other.id, ['REVIEW']);
    const stranger = await t.ctx.as([...REVIEWER]);
    const theirs = await stranger.newRecord();
    await stranger.moveTo(theirs.id, ['REVIEW']);
    const flip = cursor[12] === 'A' ? 'B' : 'A';
    const foreign = {
      otherRecord: (await api.get(historyUrl(other.id), { limit: '1' })).body.next_cursor,
      otherList: (await api.get(RECORDS, { limit: '1' })).body.next_cursor,
      otherAccount: (await stranger.get(historyUrl(theirs.id), { limit: '1' })).body.next_cursor,
      tampered: `${cursor.slice(0, 12)}${flip}${cursor.slice(13)}`,
      truncated: cursor.slice(0, -2),
    };
    for (const [name, bad] of Object.entries(foreign)) {
      expect(typeof bad, name).toBe('string');
      const res = await api.get(historyUrl(record.id), { cursor: bad });
      expect([name, res.status, res.body]).toEqual([name, 400, errorBody('INVALID_CURSOR')]);
    }
    // The cursor still serves its own record.
    expect((await api.get(historyUrl(record.id), { cursor, limit: '2' })).body.items).toEqual(byTwo[1].items);
  });

  it("another account's or an unknown record → 404; bad limits → 400; a scope of the accounting records needed", async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const record = await api.newRecord();
    const stranger = await t.ctx.as([...REVIEWER]);
    for (const id of [record.id, 'accr_nope']) {
      const res = await stranger.get(historyUrl(id));
      expect([res.status, res.body]).toEqual([
        404,
        errorBody('NOT_FOUND', {
          details: { accounting_record_id: id },
        }),
      ]);
    }
    for (const limit of ['0', '501', 'x']) {
      const res = await api.get(historyUrl(record.id), { limit });
      expect([limit, res.status, res.body.error_code]).toEqual([limit, 400, 'INVALID_REQUEST']);
    }
    expect((await api.get(historyUrl(record.id), { limit: '500' })).body.items).toHaveLength(1);
    for (const scope of ['accounting.record.read', 'accounting.record.write', 'accounting.record.review'] as const) {
      const client = await t.ctx.as([scope], api.accountId);
      expect((await client.get(historyUrl(record.id))).status).toBe(200);
    }
    const outsider = await t.ctx.as(['fields.read', 'field_values.read'], api.accountId);
    expect((await outsider.get(historyUrl(record.id))).status).toBe(403);
  });
});
