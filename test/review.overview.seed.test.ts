import { expect, it } from 'vitest';
import { seed } from '../src/cli/seed.js';
import { ADMIN, EXPORT_RESULTS, reviewUrl } from './support/accounting.js';
import { errorBody } from './support/expect.js';
import type { Api } from './support/api.js';
import { describeEachDialect, newAccountId } from './support/context.js';

const OVERVIEW = '/internal/v1/accounting/overview';
const QUEUE = '/internal/v1/accounting/records';

/** Every record the review queue's search finds with `filter`, a page at a time, as [review_status, source_type]. */
async function queueRecords(api: Api, filter: Record<string, string>): Promise<[string, string][]> {
  return (await queueItems(api, filter)).map((r) => [r.review_status, r.source_type]);
}

/** Every record the review queue's search finds with `filter`, as the search answers them. */
async function queueItems(api: Api, filter: Record<string, string>): Promise<any[]> {
  const found: any[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; text: string; body: any } = await api.get(QUEUE, {
      ...filter,
      limit: '500',
      ...(cursor ? { cursor } : {}),
    });
    expect(res.status, res.text).toBe(200);
    found.push(...res.body.items);
    cursor = res.body.next_cursor;
  } while (cursor);
  return found;
}

const tally = (pairs: [string, string][]) => {
  const counts: Record<string, number> = {};
  for (const [status, source] of pairs) counts[`${status}/${source}`] = (counts[`${status}/${source}`] ?? 0) + 1;
  return counts;
};

describeEachDialect("the overview on svc seed's demo company: its numbers are the queue's", (t) => {
  it('counts each review state and source type as the queue finds them, and the failed exports as its filter does', async () => {
    const accountId = newAccountId();
    await seed(t.ctx.db, ['--account', accountId, '--records', '600', '--values', '40'], () => {});
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read'], accountId);
    const overview = await api.get(OVERVIEW);
    expect(overview.status, overview.text).toBe(200);
    const counts: Record<string, number> = {};
    for (const c of overview.body.counts) counts[`${c.review_status}/${c.source_type}`] = c.count;

    // The whole queue, and the queue opened at each state (as the overview's links open it), cell by cell.
    const all = await queueRecords(api, {});
    expect(all).toHaveLength(600);
    expect(tally(all)).toEqual(counts);
    for (const status of ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT', 'EXPORTED']) {
      const opened = await queueRecords(api, { review_status: status });
      const expected = Object.fromEntries(Object.entries(counts).filter(([key]) => key.startsWith(`${status}/`)));
      expect(tally(opened), status).toEqual(expected);
    }
    // The seed has failed exports; the overview's number is the queue's "export failed" filter's.
    const failed = await queueRecords(api, { has_export_failure: 'true' });
    expect(failed.length).toBeGreaterThan(0);
    expect(overview.body.failed_exports).toBe(failed.length);
    // Waiting longest: records the queue has in Prepare or Review.
    expect(overview.body.waiting_longest.length).toBeGreaterThan(0);
    for (const record of overview.body.waiting_longest) expect(['PREPARE', 'REVIEW']).toContain(record.review_status);
  });

  it('charts the exports the seed reports: each exported or failed record on the day its export was reported', async () => {
    const accountId = newAccountId();
    await seed(t.ctx.db, ['--account', accountId, '--records', '600', '--values', '40'], () => {});
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read'], accountId);
    const overview = await api.get(OVERVIEW);
    expect(overview.status, overview.text).toBe(200);
    const days: { date: string; exported: number; failed: number }[] = overview.body.exports_per_day;
    expect(days).toHaveLength(30);

    // What the records say of their last export, by the day it was reported, within the chart's 30 days.
    const expected = new Map(days.map((d) => [d.date, { date: d.date, exported: 0, failed: 0 }]));
    for (const record of await queueItems(api, {})) {
      const last = record.last_export_result;
      const day = last && expected.get(last.reported_at.slice(0, 10));
      if (day) day[last.status === 'SUCCESS' ? 'exported' : 'failed'] += 1;
    }
    expect(days).toEqual([...expected.values()]);
    expect(days.reduce((n, d) => n + d.exported, 0)).toBeGreaterThan(0);
    expect(days.filter((d) => d.exported > 0).length).toBeGreaterThan(1);
    // Each day's numbers are the queue's: records with an export report of that outcome on that day.
    for (const d of days) {
      for (const [outcome, n] of [
        ['SUCCESS', d.exported],
        ['FAILURE', d.failed],
      ] as const) {
        const found = await queueItems(api, { exported_on: d.date, export_outcome: outcome });
        expect([d.date, outcome, found.length]).toEqual([d.date, outcome, n]);
      }
    }

    // An exported record's history ends with its export, reported when the record says; the feed announces none.
    const [exported] = await queueItems(api, { review_status: 'EXPORTED', limit: '1' });
    const history = await api.get(`${QUEUE}/${exported.id}/history`);
    expect(history.status, history.text).toBe(200);
    const last = history.body.items.at(-1);
    expect([last.type, last.version, last.occurred_at, last.changes.reference_id]).toEqual([
      'EXPORT_SUCCEEDED',
      exported.version,
      exported.last_export_result.reported_at,
      exported.last_export_result.reference_id,
    ]);
    const feed = await (await t.ctx.as(['events.read'], accountId)).get('/v1/events');
    expect(feed.status, feed.text).toBe(200);
    expect(feed.body.items.filter((e: { type: string }) => e.type.startsWith('accounting_record.export'))).toEqual([]);
  });

  it('counts a record reported twice in a day once, as the queue finds it; a day or an outcome alone is checked', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
    const [twice, once] = await api.newRecords([
      { review_status: 'READY_FOR_EXPORT' },
      { review_status: 'READY_FOR_EXPORT' },
    ]);
    const fail = (id: string) =>
      api.post(EXPORT_RESULTS, {
        results: [{ accounting_record_id: id, failure: { error_message: 'Closed period' } }],
      });
    expect((await fail(twice.id)).status).toBe(200);
    // A failure sends the record back to REVIEW (by contract); approved again, it fails again the same day.
    expect((await api.post(reviewUrl(twice.id), { review_status: 'READY_FOR_EXPORT' })).status).toBe(200);
    expect((await fail(twice.id)).status).toBe(200);
    expect((await fail(once.id)).status).toBe(200);
    const today = (await api.get(OVERVIEW)).body.exports_per_day.at(-1);
    expect([today.exported, today.failed]).toEqual([0, 2]);
    const failed = await queueItems(api, { exported_on: today.date, export_outcome: 'FAILURE' });
    expect(failed.map((r) => r.id).sort()).toEqual([twice.id, once.id].sort());
    expect(await queueItems(api, { exported_on: today.date, export_outcome: 'SUCCESS' })).toEqual([]);
    expect((await queueItems(api, { exported_on: today.date })).length).toBe(2);
    expect(await queueItems(api, { exported_on: '2001-01-01' })).toEqual([]);

    const alone = await api.get(QUEUE, { export_outcome: 'FAILURE' });
    expect([alone.status, alone.body]).toEqual([
      400,
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/query/export_outcome', message: expect.any(String) }] },
      }),
    ]);
    const notADay = await api.get(QUEUE, { exported_on: '2026-02-30' });
    expect([notADay.status, notADay.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
  });
});
