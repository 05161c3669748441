import { expect, it } from 'vitest';
import { seed } from '../src/cli/seed.js';
import { ADMIN } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect, newAccountId } from './support/context.js';

const OVERVIEW = '/internal/v1/accounting/overview';
const QUEUE = '/internal/v1/accounting/records';

/** Every record the review queue's search finds with `filter`, a page at a time, as [review_status, source_type]. */
async function queueRecords(api: Api, filter: Record<string, string>): Promise<[string, string][]> {
  const found: [string, string][] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; text: string; body: any } = await api.get(QUEUE, {
      ...filter,
      limit: '500',
      ...(cursor ? { cursor } : {}),
    });
    expect(res.status, res.text).toBe(200);
    for (const record of res.body.items) found.push([record.review_status, record.source_type]);
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
});
