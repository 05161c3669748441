import { call } from '../lib/api.js';
import { importShapes, itemOf, openDb, seeded, shapeOf, vendorName, type Chart } from '../lib/coding-data.js';
import { log, type Bench } from '../lib/context.js';
import { load, type LoadResult } from '../lib/load.js';
import { afterBulkLoad } from '../../src/speed/statistics.js';
import { account, loadNow, median, callerOf } from './coding-parts.js';
import { suggestions } from './coding-suggestions.js';

/**
 * Issue 30's measured targets (bench/README.md, `--only`): ingestion with 100 active coding rules against the same
 * ingestion with none, applying a rule to 10,000 records under review, and suggestions for a 200-record grid page
 * over 100,000 approved records. Each account is the bench's own (`bench-…`), with a company of bench/lib/coding-data.ts.
 */

export const GROUPS = ['ingest-rules', 'apply-rules', 'suggestions'] as const;
export type Group = (typeof GROUPS)[number];

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

/** Runs the groups asked for, in their order. */
export async function codingScenarios(b: Bench, groups: readonly Group[]): Promise<void> {
  if (groups.includes('ingest-rules')) await ingestRules(b);
  if (groups.includes('apply-rules')) await applyRules(b);
  if (groups.includes('suggestions')) await suggestions(b);
}
