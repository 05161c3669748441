import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { ADMIN, EXPORT_RESULTS, INGEST, item, RECORDS, reviewUrl } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { storedRecords } from './support/stored.js';

/**
 * The work the run must have done before it ends: what the assertions below rely on (more than 20 records, several
 * pages polled, moves and exports among them), reached however slowly the machine runs. The test's timeout is the
 * ceiling that turns a writer that never gets there into a failure.
 */
const QUOTA = { ingests: 25, reviews: 20, exports: 8, polls: 10 };
const NEXT: Record<string, string[]> = {
  PREPARE: ['REVIEW'],
  REVIEW: ['READY_FOR_EXPORT', 'PREPARE'],
  READY_FOR_EXPORT: ['REVIEW'],
  EXPORTED: ['REVIEW'],
};

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

/** Runs `step` in a loop while `more()`; counts successful steps. */
async function loop(more: () => boolean, step: () => Promise<boolean>): Promise<number> {
  let done = 0;
  while (more()) {
    if (await step()) done++;
    else await sleep(5); // nothing to do yet: let the other loops' I/O run
  }
  return done;
}

describeEachDialect('accounting polling never misses a change under concurrent writers', (t) => {
  it('a poller following updated_at[gt] and next_cursor ends with every record at its final version', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const known: string[] = [];
    const statuses: Record<number, number> = {};
    const count = (status: number) => (statuses[status] = (statuses[status] ?? 0) + 1);
    const done = { ingests: 0, reviews: 0, exports: 0, polls: 0 };
    const enough = () => (Object.keys(QUOTA) as (keyof typeof QUOTA)[]).every((k) => done[k] >= QUOTA[k]);
    // The run ends in phases, so that how it ends is known: the reviewers stop once every quota is met (an exported
    // record is never moved back after that), the exporters once one of them has exported a record since, the
    // ingesters (who keep the exporters fed) then, and the poller last.
    const running = { reviewers: true, exporters: true, ingesters: true };
    let exportedAfterReviews = false;

    const ingest = () =>
      loop(
        () => running.exporters,
        async () => {
          const n = 1 + Math.floor(Math.random() * 10);
          const res = await api.post(INGEST, {
            items: Array.from({ length: n }, () =>
              item({
                review_status: pick(['PREPARE', 'REVIEW', 'READY_FOR_EXPORT']),
                type: pick(['CARD_EXPENSE_POST', 'BILL_EXPENSE', 'REIMBURSEMENT_EXPENSE_POST']),
              }),
            ),
          });
          count(res.status);
          if (res.status !== 200) return false;
          known.push(...res.body.items.map((r: any) => r.id));
          done.ingests++;
          return true;
        },
      );
    const review = (client: Api) =>
      loop(
        () => !enough(),
        async () => {
          if (known.length === 0) return false;
          const id = pick(known);
          const current = await client.get(`${RECORDS}/${id}`);
          const res = await client.post(reviewUrl(id), {
            review_status: pick(NEXT[current.body.review_status]!),
            version: current.body.version,
          });
          count(res.status);
          if (res.status !== 200) return false;
          done.reviews++;
          return true;
        },
      );
    const exporter = (client: Api) =>
      loop(
        () => running.reviewers || !exportedAfterReviews,
        async () => {
          const afterReviews = !running.reviewers;
          const ready = await client.get(RECORDS, { review_status: 'READY_FOR_EXPORT', limit: '20' });
          const ids: string[] = ready.body.items.map((r: any) => r.id).filter(() => Math.random() < 0.7);
          if (ids.length === 0) return false;
          const results = ids.map((id) =>
            Math.random() < 0.8
              ? { accounting_record_id: id, success: { reference_id: `erp_${id}` } }
              : { accounting_record_id: id, failure: { error_message: 'Invalid GL account' } },
          );
          const res = await client.post(EXPORT_RESULTS, { results });
          count(res.status);
          if (res.status !== 200) return false;
          done.exports++;
          if (afterReviews && results.some((r) => 'success' in r)) exportedAfterReviews = true;
          return true;
        },
      );

    // The poller: what an integration that follows the spec's polling rules would hold.
    const seen = new Map<string, { version: number; updated_at: string }>();
    let last = '1970-01-01T00:00:00.000000Z';
    let pages = 0;
    const pollRound = async (): Promise<number> => {
      const since = last;
      let cursor: string | undefined;
      let got = 0;
      do {
        const res = await api.get(RECORDS, { 'updated_at[gt]': since, limit: '50', ...(cursor ? { cursor } : {}) });
        expect(res.status).toBe(200);
        pages++;
        for (const record of res.body.items) {
          expect(record.updated_at > last).toBe(true); // ascending, never behind what was already seen
          const before = seen.get(record.id);
          if (before) expect(record.version).toBeGreaterThan(before.version);
          seen.set(record.id, { version: record.version, updated_at: record.updated_at });
          last = record.updated_at;
          got++;
        }
        cursor = res.body.next_cursor ?? undefined;
      } while (cursor);
      return got;
    };
    const poller = loop(
      () => running.ingesters,
      async () => {
        if ((await pollRound()) === 0) return false;
        done.polls++;
        return true;
      },
    );

    const reviewer = await t.ctx.as(['accounting.record.admin', 'accounting.record.read'], api.accountId);
    const writer = await t.ctx.as(['accounting.record.write'], api.accountId);
    const stopped = <T>(group: keyof typeof running, work: Promise<T>) =>
      work.then((counts) => {
        running[group] = false;
        return counts;
      });
    const reviews = stopped('reviewers', Promise.all([review(reviewer), review(reviewer)]));
    const exports = stopped('exporters', Promise.all([exporter(writer), exporter(writer)]));
    const ingests = stopped('ingesters', Promise.all([ingest(), ingest()]));
    const [ingested, reviewed, exported] = await Promise.all([ingests, reviews, exports, poller]);
    while ((await pollRound()) > 0);

    const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
    expect(sum(ingested)).toBeGreaterThanOrEqual(QUOTA.ingests);
    expect(sum(reviewed)).toBeGreaterThanOrEqual(QUOTA.reviews);
    expect(sum(exported)).toBeGreaterThanOrEqual(QUOTA.exports);

    const rows = await storedRecords(t.ctx, api.accountId);
    expect(rows.length).toBeGreaterThan(20);
    const final = new Map(rows.map((r) => [r.id, Number(r.version)]));
    const missed = rows.filter((r) => seen.get(r.id)?.version !== Number(r.version)).map((r) => r.id);
    expect(missed).toEqual([]);
    expect(seen.size).toBe(final.size);
    expect(
      Object.keys(statuses)
        .map(Number)
        .every((s) => [200, 409, 422].includes(s)),
    ).toBe(true);
    expect(rows.some((r) => r.review_status === 'EXPORTED')).toBe(true);
    expect(pages).toBeGreaterThan(5);

    // the kept per-state counts behind total_count agree with the rows
    const total = async (query: Record<string, string>) =>
      (await api.get(RECORDS, { limit: '1', ...query })).body.total_count;
    expect(await total({})).toBe(rows.length);
    for (const source of ['CARD', 'REIMBURSEMENT', 'BILL']) {
      expect(await total({ source_type: source })).toBe(rows.filter((r) => r.source_type === source).length);
    }
    for (const status of ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT', 'EXPORTED']) {
      expect(await total({ review_status: status })).toBe(
        rows.filter((r) => r.review_status === status && r.source_type !== 'BILL').length,
      );
    }
  });
});
