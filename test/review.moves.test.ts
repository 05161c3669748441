import { expect, it } from 'vitest';
import type { Api } from './support/api.js';
import { EXPORT_RESULTS, RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { ISO_MICROS } from './support/expect.js';
import { BULK, historyUrl, REVIEWER } from './support/review.js';
import { storedRecords } from './support/stored.js';

const STATES = ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT', 'EXPORTED'] as const;

/** total_count of the public query for each review state (card and reimbursement records, as /v3 counts them). */
async function totals(api: Api, query: Record<string, string> = {}) {
  const out: Record<string, number> = {};
  for (const status of STATES) {
    const res = await api.get(RECORDS, { review_status: status, limit: '1', ...query });
    expect(res.status, res.text).toBe(200);
    out[status] = res.body.total_count;
  }
  return out;
}

describeEachDialect('review: bulk moves', (t) => {
  it('moves records from several states at once, answers each in request order, and stores moves, events and counts', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const reviewer = await t.ctx.as(['accounting.record.review'], api.accountId);
    const [a, b] = await api.newRecords([{}, { type: 'REIMBURSEMENT_EXPENSE_POST' }]);
    const ready = await api.readyRecord();
    const done = await api.exportedRecord();
    const untouched = await api.newRecord();
    expect(await totals(api)).toEqual({ PREPARE: 3, REVIEW: 0, READY_FOR_EXPORT: 1, EXPORTED: 1 });

    const res = await reviewer.post(BULK, {
      review_status: 'REVIEW',
      records: [{ id: ready.id, version: 1 }, { id: a.id }, { id: done.id, version: 2 }, { id: b.id, version: 1 }],
    });
    expect(res.status, res.text).toBe(200);
    const moved = (id: string, version: number) => ({
      id,
      review_status: 'REVIEW',
      version,
      updated_at: expect.stringMatching(ISO_MICROS),
    });
    expect(res.body).toEqual({ items: [moved(ready.id, 2), moved(a.id, 2), moved(done.id, 3), moved(b.id, 2)] });
    // Each record its own updated_at, in request order, after every earlier change.
    const times = res.body.items.map((i: any) => i.updated_at);
    expect([untouched.updated_at, ...times]).toEqual([untouched.updated_at, ...times].sort());
    expect(new Set(times).size).toBe(4);

    const from = ['READY_FOR_EXPORT', 'PREPARE', 'EXPORTED', 'PREPARE'];
    for (const [k, before] of [ready, a, done, b].entries()) {
      const item = res.body.items[k];
      const now = (await api.get(`${RECORDS}/${before.id}`)).body;
      expect(now).toMatchObject({ review_status: 'REVIEW', version: item.version, updated_at: item.updated_at });
      const history = await api.get(historyUrl(before.id));
      expect(history.body.items.at(-1)).toEqual({
        event_id: expect.stringMatching(/^accrev_/),
        version: item.version,
        type: 'MOVED',
        occurred_at: item.updated_at,
        actor: { type: 'client', id: reviewer.clientId },
        changes: { review_status: { from: from[k], to: 'REVIEW' } },
      });
    }
    expect(await totals(api)).toEqual({ PREPARE: 1, REVIEW: 4, READY_FOR_EXPORT: 0, EXPORTED: 0 });
    const stored = await storedRecords(t.ctx, api.accountId);
    expect(stored.map((r) => [r.id, r.review_status, Number(r.version)])).toEqual([
      [untouched.id, 'PREPARE', 1],
      [ready.id, 'REVIEW', 2],
      [a.id, 'REVIEW', 2],
      [done.id, 'REVIEW', 3],
      [b.id, 'REVIEW', 2],
    ]);
  });

  it('total_count agrees with the records after moves, refusals and export results (the kept counts)', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const types = ['CARD_EXPENSE_POST', 'REIMBURSEMENT_EXPENSE_POST', 'BILL_EXPENSE'];
    // 0-3 PREPARE, 4-7 REVIEW, 8-11 READY_FOR_EXPORT; card, reimbursement and bill records in turn.
    const records = await api.newRecords(
      Array.from({ length: 12 }, (_, i) => ({ type: types[i % 3], review_status: STATES[Math.floor(i / 4)] })),
    );
    const ids = (k: number[]) => k.map((i) => ({ id: records[i].id }));
    const steps = [
      { review_status: 'REVIEW', records: ids([0, 1, 2, 3]) },
      { review_status: 'READY_FOR_EXPORT', records: ids([0, 1, 4, 5]) },
      { review_status: 'PREPARE', records: ids([2, 6, 8]) }, // refused: 8 is READY_FOR_EXPORT
      { review_status: 'PREPARE', records: ids([2, 6]) },
    ];
    const statuses = [];
    for (const step of steps) statuses.push((await api.post(BULK, step)).status);
    expect(statuses).toEqual([200, 200, 409, 200]);
    const report = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: records[0].id, success: {} },
        { accounting_record_id: records[1].id, failure: { error_message: 'no' } },
        { accounting_record_id: records[8].id, success: {} },
      ],
    });
    expect(report.status, report.text).toBe(200);
    expect((await api.post(BULK, { review_status: 'REVIEW', records: ids([0]) })).status).toBe(200);
    await api.moveTo(records[9].id, ['REVIEW']);

    const stored = await storedRecords(t.ctx, api.accountId);
    const expected = (sources: string[]) =>
      Object.fromEntries(
        STATES.map((s) => [s, stored.filter((r) => r.review_status === s && sources.includes(r.source_type)).length]),
      );
    const counted = await totals(api);
    expect(counted).toEqual({ PREPARE: 1, REVIEW: 5, READY_FOR_EXPORT: 2, EXPORTED: 0 });
    expect(counted).toEqual(expected(['CARD', 'REIMBURSEMENT']));
    // The kept counts against count(*) over the index (a time bound makes the query count rows).
    expect(await totals(api, { 'updated_at[gte]': '1970-01-01T00:00:00Z' })).toEqual(counted);
    const bills = await api.get(RECORDS, { source_type: 'BILL', limit: '1' });
    expect(bills.body.total_count).toBe(4);
    expect((await api.get(RECORDS, { limit: '1' })).body.total_count).toBe(12);
  });
});
