import { importShapes, openDb, seeded, shapeOf } from '../lib/coding-data.js';
import { log, type Bench } from '../lib/context.js';
import { readFloor } from '../lib/data-floor.js';
import { afterBulkLoad } from '../../src/speed/statistics.js';
import { account, loadNow, median, percentile, round1, callerOf } from './coding-parts.js';

/**
 * Suggestions for a grid page: POST /internal/v1/accounting/suggestions with 200 uncoded records (vendors the
 * history has seen) over 100,000 approved records of 200 vendors, one request at a time, five pages in turn;
 * p50/p95/p99 of the answers. Beside it, its data floor: the SQL the request ran, captured and run again through
 * the bare driver, plus JSON.stringify of its answer.
 */
export async function suggestions(b: Bench): Promise<void> {
  const { quick } = b.settings;
  const HISTORY = quick ? 20_000 : 100_000;
  const PAGES = 5;
  const acc = await account(b, 'bench', true);
  const random = seeded(32);
  const now = Date.now() * 1000;
  const db = openDb(b.dbUrl);
  let pages: string[][];
  try {
    const caller = callerOf(acc.accountId);
    const history = Array.from({ length: HISTORY }, () => shapeOf(random, now));
    await importShapes(db, caller, acc.chart!, history, 'READY_FOR_EXPORT', random);
    const seen = new Set(history.map((s) => s.vendor));
    const grid = Array.from({ length: PAGES * 200 * 2 }, () => shapeOf(random, now))
      .filter((s) => seen.has(s.vendor))
      .slice(0, PAGES * 200);
    const ids = await importShapes(db, caller, acc.chart!, grid, 'PREPARE', random);
    pages = Array.from({ length: PAGES }, (_, p) => ids.slice(p * 200, p * 200 + 200));
    // A bulk load leaves PostgreSQL without statistics until autovacuum (if on) catches up, as after `svc seed`.
    await afterBulkLoad(db);
  } finally {
    await db.close();
  }
  const client = { authorization: `Bearer ${acc.bearer}` };
  const url = `${b.server.url}/internal/v1/accounting/suggestions`;
  const body = (p: number) => JSON.stringify({ accounting_record_ids: pages[p % PAGES] });
  const ask = async (p: number) => {
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...client, 'content-type': 'application/json' },
      body: body(p),
    });
    const answer = (await res.json()) as { items: { suggestions: unknown[] }[] };
    if (!res.ok) throw new Error(`suggestions → ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    return { ms: performance.now() - started, suggested: answer.items.filter((i) => i.suggestions.length > 0).length };
  };
  // The seeding above blocks this process's event loop (SQLite writes in-process) for longer than the server's
  // keep-alive timeout: let the client see the server close its idle connection before the first request reuses it
  // ("other side closed").
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (let w = 0; w < PAGES; w++) await ask(w);
  const before = loadNow();
  const times: number[] = [];
  let suggested = 0;
  const runs = quick ? 20 : 60;
  for (let r = 0; r < runs; r++) {
    const answer = await ask(r);
    times.push(answer.ms);
    suggested += answer.suggested;
  }
  const after = loadNow();
  log(`suggestions: ${suggested / runs} of 200 records a page had a suggestion`);
  const captured = await b.capturing(async (c, headers) => {
    const out = [];
    for (const p of [0, 1]) {
      out.push(await c.request('/internal/v1/accounting/suggestions', { method: 'POST', headers, body: body(p) }));
    }
    return out;
  });
  b.statementsOf('suggestions for a page', captured[0]!);
  const floor = await b.onRaw((raw) => readFloor(raw, captured, quick ? 2 : 5));
  // Cold: a new server (nothing kept from earlier requests, src/speed/suggestion-values.ts), each page asked once.
  await b.restart();
  const cold: number[] = [];
  for (let p = 0; p < PAGES; p++) cold.push((await ask(p)).ms);
  const p95 = round1(percentile(times, 95));
  const mean = times.reduce((a, t) => a + t, 0) / times.length;
  b.add({
    name: `suggestions for a 200-record grid page, ${HISTORY.toLocaleString('en-US')} approved records of ~200 vendors: p95 of ${runs}, one at a time, after each page was asked once (load ${before} → ${after})`,
    unit: 'ms',
    throughput: p95,
    p50: round1(percentile(times, 50)),
    p99: round1(percentile(times, 99)),
    targetMax: 200,
  });
  b.add({
    name: `suggestions for a 200-record grid page, the first request of each of ${PAGES} pages after a restart (nothing kept yet): the slowest; median ${round1(median(cold))} ms`,
    unit: 'ms',
    throughput: round1(Math.max(...cold)),
    reported: true,
  });
  b.add({
    name: 'suggestions for a 200-record grid page, as a rate (one at a time)',
    unit: 'pages/s',
    throughput: 1000 / mean,
    floor,
    floorName: 'data',
    reported: true,
  });
}
