import os from 'node:os';
import { call, token } from '../lib/api.js';
import {
  importShapes,
  itemOf,
  makeChart,
  openDb,
  seeded,
  shapeOf,
  vendorName,
  type Chart,
} from '../lib/coding-data.js';
import { ALL_SCOPES, log, type Bench } from '../lib/context.js';
import { readFloor } from '../lib/data-floor.js';
import { load, type LoadResult } from '../lib/load.js';
import { afterBulkLoad } from '../../src/speed/statistics.js';
import type { Caller } from '../../src/modules/auth/auth.service.js';

/**
 * Issue 30's measured targets (bench/README.md, `--only`): ingestion with 100 active coding rules against the same
 * ingestion with none, applying a rule to 10,000 records under review, and suggestions for a 200-record grid page
 * over 100,000 approved records. Each account is the bench's own (`bench-…`), with a company of bench/lib/coding-data.ts.
 */

export const GROUPS = ['ingest-rules', 'apply-rules', 'suggestions'] as const;
export type Group = (typeof GROUPS)[number];

const loadNow = () => os.loadavg()[0]!.toFixed(1);
const callerOf = (accountId: string): Caller => ({ accountId, actor: { type: 'system', id: 'bench' } });

/**
 * A client of an account of the bench's and its headers (a new client; `bench`, the account of the bench's own
 * client, is the one the capture server's requests are made as), with the company's fields when asked.
 */
async function account(b: Bench, accountId: string, chart: boolean) {
  let bearer: string;
  if (accountId === 'bench') bearer = (await b.client()).bearer;
  else {
    const creds = JSON.parse(b.svc(['clients', 'create', '--account', accountId, '--scopes', ALL_SCOPES])) as {
      client_id: string;
      client_secret: string;
    };
    bearer = await token(b.server.url, creds.client_id, creds.client_secret);
  }
  const db = openDb(b.dbUrl);
  try {
    const made = chart ? await makeChart(db, callerOf(accountId)) : null;
    return {
      accountId,
      bearer,
      auth: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      chart: made,
    };
  } finally {
    await db.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const round1 = (x: number) => Math.round(x * 10) / 10;

async function createRule(b: Bench, auth: Record<string, string>, body: unknown): Promise<{ id: string }> {
  return call(`${b.server.url}/internal/v1/accounting/coding-rules`, { method: 'POST', headers: auth, body });
}

/** 100 rules of the kinds an account has: a vendor's name, a vendor's kind with an amount, a person's memo words. */
async function hundredRules(b: Bench, auth: Record<string, string>, chart: Chart): Promise<void> {
  const set = (c: { field_id: string; svc_id: string }) => ({ field_id: c.field_id, svc_id: c.svc_id });
  for (let i = 0; i < 100; i++) {
    const body =
      i < 80
        ? {
            name: `vendor ${i}`,
            conditions: { vendor_name: { operator: 'EQUALS', value: vendorName(i) } },
            actions: { field_values: [set(chart.gl[i % chart.gl.length]!)] },
          }
        : i < 90
          ? {
              name: `kind ${i}`,
              conditions: {
                vendor_name: { operator: 'CONTAINS', value: ['ride', 'hotel', 'lunch', 'cloud', 'ads'][i % 5]! },
                amount: { currency: 'USD', min: 10 * (i - 79), max: 1000 * (i - 79) },
              },
              actions: { field_values: [set(chart.gl[i % chart.gl.length]!)] },
            }
          : {
              name: `memo ${i}`,
              conditions: {
                memo_contains: ['client', 'team', 'office', 'travel'][i % 4]!,
                user_emails: [`person${i - 90}@bench.example.invalid`, `person${i - 60}@bench.example.invalid`],
              },
              actions: { field_values: [set(chart.departments[i % chart.departments.length]!)] },
            };
    await createRule(b, auth, body);
  }
}

/**
 * Ingestion of 100 records per request (uncoded: the rules fill them) into an account with 100 active rules
 * against an account with none, on the same server and tables: alternating slices of the same number of requests,
 * in pairs ordered A B, B A, … so that the machine's drift weighs on both alike. Target: ≥ 80% of the rate with
 * no rule.
 */
async function ingestRules(b: Bench): Promise<void> {
  const { quick } = b.settings;
  const none = await account(b, 'bench-norules', true);
  const ruled = await account(b, 'bench-rules', true);
  await hundredRules(b, ruled.auth, ruled.chart!);
  const random = seeded(30);
  const now = Date.now() * 1000;
  const PER = 100;
  const requests = quick ? 5 : 20;
  const pairs = quick ? 2 : 6;
  const bodies = Array.from({ length: 64 }, () =>
    JSON.stringify({ items: Array.from({ length: PER }, () => itemOf(shapeOf(random, now))) }),
  );
  const slice = async (auth: Record<string, string>) => {
    let n = 0;
    return load({
      url: `${b.server.url}/internal/v1/accounting/records`,
      method: 'POST',
      headers: auth,
      connections: 2,
      amount: requests,
      setupRequest: (request) => ({ ...request, body: bodies[n++ % bodies.length] }),
    });
  };
  // Warm-up of each, then the pairs.
  await slice(none.auth);
  await slice(ruled.auth);
  const before = loadNow();
  const runs: { none: LoadResult[]; ruled: LoadResult[] } = { none: [], ruled: [] };
  for (let p = 0; p < pairs; p++) {
    if (p % 2 === 0) {
      runs.none.push(await slice(none.auth));
      runs.ruled.push(await slice(ruled.auth));
    } else {
      runs.ruled.push(await slice(ruled.auth));
      runs.none.push(await slice(none.auth));
    }
  }
  const rateOf = (rs: LoadResult[]) => {
    const seconds = rs.reduce((t, r) => t + r.requests / r.rps, 0);
    const done = rs.reduce((t, r) => t + r.requests, 0);
    return {
      throughput: (done * PER) / seconds,
      p50: Math.max(...rs.map((r) => r.p50)),
      p99: Math.max(...rs.map((r) => r.p99)),
      errors: rs.reduce((t, r) => t + r.errors + r.non2xx, 0),
    };
  };
  const baseline = rateOf(runs.none);
  const ratios = runs.none.map((r, i) => runs.ruled[i]!.rps / r.rps);
  log(`ingestion with 100 rules ÷ with none, per pair: ${ratios.map((x) => x.toFixed(2)).join(' ')}`);
  b.add({
    name: `ingest ${PER} records per request, no coding rule (baseline; load ${before} → ${loadNow()})`,
    unit: 'records/s',
    ...baseline,
  });
  b.add({
    name: `ingest ${PER} records per request, 100 active coding rules (${pairs} pairs of ${requests} requests each; pairs' median ratio ${median(ratios).toFixed(2)})`,
    unit: 'records/s',
    ...rateOf(runs.ruled),
    floor: baseline.throughput,
    floorName: 'no rules',
    minShare: 0.8,
  });
}

/**
 * One rule applied to 10,000 records under review (POST …/coding-rules/apply with the rule named), three times:
 * two rules with the same conditions and different GL accounts take turns, each replacing what the other set. Beside
 * it, the baseline of the same run: the same 10,000 records moved between PREPARE and REVIEW, 1000 per request (a
 * version, an event and a row rewritten per record, as an apply does).
 */
async function applyRules(b: Bench): Promise<void> {
  const { quick } = b.settings;
  const COUNT = quick ? 2000 : 10_000;
  const acc = await account(b, 'bench-apply', true);
  const chart = acc.chart!;
  const random = seeded(31);
  const now = Date.now() * 1000;
  const db = openDb(b.dbUrl);
  let ids: string[];
  try {
    const shapes = Array.from({ length: COUNT }, () => shapeOf(random, now));
    ids = await importShapes(db, callerOf(acc.accountId), chart, shapes, 'PREPARE', random);
    await afterBulkLoad(db);
  } finally {
    await db.close();
  }
  const rules = [];
  for (const gl of [chart.gl[0]!, chart.gl[1]!]) {
    rules.push(
      await createRule(b, acc.auth, {
        name: `all card and reimbursement spend → ${gl.value}`,
        conditions: { source_types: ['CARD', 'REIMBURSEMENT'] },
        actions: {
          field_values: [
            { field_id: gl.field_id, svc_id: gl.svc_id },
            { field_id: chart.departments[0]!.field_id, svc_id: chart.departments[0]!.svc_id },
          ],
        },
      }),
    );
  }
  const internal = `${b.server.url}/internal/v1/accounting`;
  const applyTimes: number[] = [];
  const moveTimes: number[] = [];
  const before = loadNow();
  let status: 'PREPARE' | 'REVIEW' = 'PREPARE';
  for (let run = 0; run < 3; run++) {
    let started = performance.now();
    const applied: { records_changed: number } = await call(`${internal}/coding-rules/apply`, {
      method: 'POST',
      headers: acc.auth,
      body: { rule_ids: [rules[run % 2]!.id] },
    });
    applyTimes.push((performance.now() - started) / 1000);
    if (applied.records_changed !== COUNT) throw new Error(`apply changed ${applied.records_changed} of ${COUNT}`);
    status = status === 'PREPARE' ? 'REVIEW' : 'PREPARE';
    started = performance.now();
    for (let at = 0; at < ids.length; at += 1000) {
      await call(`${internal}/records/review-status`, {
        method: 'POST',
        headers: acc.auth,
        body: { review_status: status, records: ids.slice(at, at + 1000).map((id) => ({ id })) },
      });
    }
    moveTimes.push((performance.now() - started) / 1000);
  }
  log(
    `apply a rule to ${COUNT} records: ${applyTimes.map((t) => t.toFixed(2)).join(', ')} s; moves: ${moveTimes.map((t) => t.toFixed(2)).join(', ')} s`,
  );
  const load = `load ${before} → ${loadNow()}`;
  b.add({
    name: `move ${COUNT} records under review between PREPARE and REVIEW, 1000 per request (baseline; median of 3, ${load})`,
    unit: 'records/s',
    throughput: COUNT / median(moveTimes),
  });
  b.add({
    name: `apply one rule to ${COUNT} records under review, one request (median of 3; the slowest ${Math.max(...applyTimes).toFixed(2)} s)`,
    unit: 's',
    throughput: median(applyTimes),
    targetMax: COUNT === 10_000 ? 5 : undefined,
  });
  b.add({
    name: `apply one rule to ${COUNT} records under review, as a rate`,
    unit: 'records/s',
    throughput: COUNT / median(applyTimes),
    floor: COUNT / median(moveTimes),
    floorName: 'move',
  });
}

/**
 * Suggestions for a grid page: POST /internal/v1/accounting/suggestions with 200 uncoded records (vendors the
 * history has seen) over 100,000 approved records of 200 vendors, one request at a time, five pages in turn;
 * p50/p95/p99 of the answers. Beside it, its data floor: the SQL the request ran, captured and run again through
 * the bare driver, plus JSON.stringify of its answer.
 */
async function suggestions(b: Bench): Promise<void> {
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

/** Runs the groups asked for, in their order. */
export async function codingScenarios(b: Bench, groups: readonly Group[]): Promise<void> {
  if (groups.includes('ingest-rules')) await ingestRules(b);
  if (groups.includes('apply-rules')) await applyRules(b);
  if (groups.includes('suggestions')) await suggestions(b);
}
