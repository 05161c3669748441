import { randomUUID } from 'node:crypto';
import { call } from '../lib/api.js';
import type { Captured } from '../lib/capture.js';
import { log, type Bench, type Client } from '../lib/context.js';
import { exportUpdateFloor, readFloor } from '../lib/data-floor.js';
import { load, rate } from '../lib/load.js';
import { addPoll, pollAll } from './poll.js';

const dataFloor = { floorName: 'data' } as const;

/**
 * The accounting records' reads and export: the full poll, three queries and four searches of the review queue
 * (one connection each) and export results of 1000 records per request, each beside its data floor.
 */
export async function recordScenarios(b: Bench, client: Client): Promise<void> {
  const { quick, duration: DURATION } = b.settings;
  const records = `${b.server.url}/v3/accounting/records`;
  const poll = await pollAll(b, client);

  // The review queue's free-text search (issue 31: it must hold at this size), by what people type: a record's id,
  // its vendor's name, a memo word, an amount. The words are a real record's, read from the queue first. No target:
  // shown beside their data floors (a one-row answer's floor is far below one HTTP request's cost), and what "holds"
  // means is read across sizes (docs/performance.md).
  const search = `${b.server.url}/internal/v1/accounting/records`;
  const sample = (
    await call<{
      items: { id: string; vendor: { name: string } | null; memo: string | null; amount: { amount: number } }[];
    }>(`${search}?limit=100&review_status=REVIEW`, { token: client.bearer })
  ).items.find((r) => r.vendor !== null && r.memo !== null);
  if (!sample) throw new Error('queue search: no record in REVIEW with a vendor and a memo');
  const memoWord = sample.memo!.split(/\s+/).find((w) => w.length >= 4) ?? sample.memo!.split(/\s+/)[0]!;
  const queries: (readonly [string, string, boolean])[] = [
    ['query records, limit 100', `${records}?limit=100`, false],
    [
      'query records, limit 500, review_status + source_type',
      `${records}?limit=500&review_status=READY_FOR_EXPORT&source_type=CARD`,
      true,
    ],
    [
      'query records, limit 500, source_type=BILL + updated_at[gt] (half the records newer)',
      `${records}?limit=500&source_type=BILL&updated_at%5Bgt%5D=${encodeURIComponent(poll.since)}`,
      true,
    ],
    ['queue search by a record id, limit 50', `${search}?limit=50&q=${encodeURIComponent(sample.id)}`, false],
    [
      `queue search by a vendor's name ("${sample.vendor!.name}"), limit 50`,
      `${search}?limit=50&q=${encodeURIComponent(sample.vendor!.name)}`,
      false,
    ],
    [
      `queue search by a memo word ("${memoWord}"), limit 50`,
      `${search}?limit=50&q=${encodeURIComponent(memoWord)}`,
      false,
    ],
    [
      `queue search by an amount (${sample.amount.amount}), limit 50`,
      `${search}?limit=50&q=${encodeURIComponent(String(sample.amount.amount))}`,
      false,
    ],
  ];

  // Export results: 1000 READY_FOR_EXPORT records per request; 1000 more for the captured request, and
  // exportFloorBatches × 1000 more for its data floor.
  const exportFloorBatches = quick ? 2 : 20;
  const ready: string[] = [];
  let c: string | null = null;
  do {
    const page: { items: { id: string }[]; next_cursor: string | null } = await call(
      `${records}?limit=500&review_status=READY_FOR_EXPORT${c ? `&cursor=${c}` : ''}`,
      { token: client.bearer },
    );
    ready.push(...page.items.map((r) => r.id));
    c = ready.length >= (quick ? 5_000 : 100_000) + (1 + exportFloorBatches) * 1000 ? null : page.next_cursor;
  } while (c);
  // The captured request and the floor first (a small database may hold few ready records), then the load.
  const exportCaptureIds = ready.splice(ready.length - 1000, 1000);
  const exportFloorIds = Array.from(
    { length: Math.max(1, Math.min(exportFloorBatches, Math.floor((ready.length - 2000) / 1000))) },
    () => ready.splice(ready.length - 1000, 1000),
  );
  if (exportCaptureIds.length < 1000 || exportFloorIds.at(-1)!.length < 1000 || ready.length < 1000) {
    throw new Error(`export results: too few READY_FOR_EXPORT records (${ready.length} left for the load)`);
  }
  log(`export results: ${ready.length} records for the load, ${exportFloorIds.length * 1000} for the floor`);
  const exportBody = (ids: string[], n: number) =>
    JSON.stringify({
      results: ids.map((id, i) =>
        i % 10 === 0
          ? { accounting_record_id: id, failure: { error_message: 'Invalid GL account' } }
          : { accounting_record_id: id, success: { reference_id: `JE-${n}-${i}` } },
      ),
    });

  const recordCaptures = await b.capturing(async (cs, headers) => {
    const pages: Captured[] = [];
    for (const query of poll.sample) pages.push(await cs.request(`/v3/accounting/records?${query}`, { headers }));
    const byQuery: Captured[] = [];
    for (const [, url] of queries) {
      const { pathname, search: query } = new URL(url);
      byQuery.push(await cs.request(`${pathname}${query}`, { headers }));
    }
    // Last: it changes 1000 records.
    const exported = await cs.request('/v3/accounting/records/export-results', {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body: exportBody(exportCaptureIds, -1),
    });
    return { pages, byQuery, exported };
  });
  b.statementsOf('a page of the poll', recordCaptures.pages[1] ?? recordCaptures.pages[0]!);
  b.statementsOf('export results', recordCaptures.exported);
  await addPoll(b, poll, recordCaptures.pages);

  for (const [i, [name, url, targeted]] of queries.entries()) {
    // One connection: p50 is the latency of one query, not of a queue.
    const r = await load({
      url,
      headers: client.auth,
      durationSeconds: DURATION,
      connections: 1,
    });
    const queryFloor = await b.onRaw((raw) => readFloor(raw, [recordCaptures.byQuery[i]!], DURATION / 4));
    b.add({ name, unit: 'req/s', ...rate(r), floor: queryFloor, ...dataFloor, ...(targeted ? { maxTimes: 2 } : {}) });
  }

  const exportBodies = Array.from({ length: Math.floor(ready.length / 1000) }, (_, n) => ({
    headers: { ...client.auth, 'idempotency-key': `export-${n}` },
    body: exportBody(ready.slice(n * 1000, n * 1000 + 1000), n),
  }));
  let exportBatch = 0;
  const exportLoad = await load({
    url: `${records}/export-results`,
    method: 'POST',
    headers: client.auth,
    // autocannon refuses more connections than requests (a --quick database holds few ready records).
    connections: Math.min(2, exportBodies.length),
    amount: exportBodies.length,
    setupRequest: (request) => ({ ...request, ...exportBodies[exportBatch++ % exportBodies.length] }),
  });
  const exportFloor = await b.onRaw((raw) =>
    exportUpdateFloor(raw, recordCaptures.exported, exportCaptureIds, exportFloorIds),
  );
  b.add({
    name: "floor: the export request's UPDATEs of 1000 records, under the record clock, raw driver",
    unit: 'records/s',
    throughput: exportFloor,
  });
  b.add({
    name: 'export results, 1000 per request',
    unit: 'records/s',
    ...rate(exportLoad, 1000),
    floor: exportFloor,
    ...dataFloor,
    minShare: 0.8,
  });
}
