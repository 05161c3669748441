import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { call } from '../lib/api.js';
import { sqlitePath } from '../lib/backup-tools.js';
import { database, log, recorder, startBench, type Bench, type Settings } from '../lib/context.js';
import { serve, type Served } from '../lib/processes.js';
import { writeReport } from '../lib/report.js';
import { fileFloor, pdfOf, pgFloor, pool, UPLOAD_CONCURRENCY } from '../lib/receipt-floors.js';

const MB = 1e6;
/** Rounds of each side (floor, svc), alternating: a drift of the shared machine weighs on both. */
const ROUNDS = 2;
const DOWNLOADS = 100;
const LARGE = 10 * MB;
const FILES = 10;

const uptime = () =>
  execFileSync('uptime', { encoding: 'utf8' })
    .trim()
    .replace(/^.*load average:\s*/, 'load ');

/** `count` records of the bench's account (one receipt each: a receipt belongs to one record), by id. */
async function newRecords(b: Bench, bearer: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let from = 0; from < count; from += 1000) {
    const items = Array.from({ length: Math.min(1000, count - from) }, (_, i) => ({
      type: 'CARD_EXPENSE_POST',
      amount: { amount: 10 + ((from + i) % 90), currency: 'USD' },
      posted_at: '2026-06-11T09:09:05.840865Z',
      memo: `receipt bench ${from + i}`,
    }));
    const res = await call<{ items: { id: string }[] }>(`${b.server.url}/internal/v1/accounting/records`, {
      method: 'POST',
      token: bearer,
      body: { items },
      headers: { 'idempotency-key': randomUUID() },
    });
    ids.push(...res.items.map((r) => r.id));
  }
  return ids;
}

async function upload(
  b: Bench,
  bearer: string,
  recordId: string,
  bytes: Uint8Array<ArrayBuffer>,
  url = b.server.url,
  bare = false,
): Promise<string> {
  const res = await fetch(bare ? `${url}/upload` : `${url}/internal/v1/accounting/records/${recordId}/receipts`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/pdf',
      'idempotency-key': randomUUID(),
    },
    body: bytes,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`upload → ${res.status} ${text.slice(0, 300)}`);
  if (bare) return '';
  return (JSON.parse(text) as { receipt: { download_uri: string } }).receipt.download_uri;
}

/**
 * (a) 1 MB uploads to records beside the raw write floor of the same storage, ROUNDS of each alternating; beside
 * them, reported, the same uploads to a second server on the same database at WORKERS = the machine's cores
 * (`cluster`, null without a core to spare), in the same rounds.
 */
async function uploads(
  b: Bench,
  bearer: string,
  count: number,
  cluster: { url: string; workers: number } | null,
  bareUrl: string,
  nodeUrl: string,
) {
  const sides = cluster ? 2 : 1;
  const records = await newRecords(b, bearer, count * ROUNDS * sides);
  const size = 1 * MB;
  const floors: number[] = [];
  const svcs: number[] = [];
  const clustered: number[] = [];
  const loads: string[] = [];
  const clusterLoads: string[] = [];
  const bares: number[] = [];
  const nodes: number[] = [];
  const send = async (url: string, mine: string[], bare = false) => {
    // Other bytes than the floor's (the floor's are not svc's receipts anyway, but no cache is warmed for it).
    const ours = mine.map(() => pdfOf(size));
    let i = 0;
    return pool(
      ours,
      UPLOAD_CONCURRENCY,
      async (bytes) => void (await upload(b, bearer, mine[i++]!, bytes, url, bare)),
    );
  };
  for (let round = 0; round < ROUNDS; round++) {
    const files = Array.from({ length: count }, () => pdfOf(size));
    const before = uptime();
    floors.push(
      b.settings.dialect === 'sqlite'
        ? await fileFloor(path.join(path.dirname(sqlitePath(b.dbUrl)), 'floor-writes'), files)
        : await pgFloor(b.dbUrl, files),
    );
    const mine = records.slice(round * sides * count, (round * sides + 1) * count);
    svcs.push(await send(b.server.url, mine));
    loads.push(`${before} → ${uptime()}`);
    let line = `receipt uploads round ${round + 1}: floor ${(count / floors.at(-1)!).toFixed(1)}/s, svc ${(count / svcs.at(-1)!).toFixed(1)}/s (${loads.at(-1)})`;
    if (cluster) {
      const start = uptime();
      const theirs = records.slice((round * sides + 1) * count, (round * sides + 2) * count);
      clustered.push(await send(cluster.url, theirs));
      clusterLoads.push(`${start} → ${uptime()}`);
      line += `, svc at WORKERS=${cluster.workers} ${(count / clustered.at(-1)!).toFixed(1)}/s (${clusterLoads.at(-1)})`;
    }
    bares.push(await send(bareUrl, mine, true));
    nodes.push(await send(nodeUrl, mine, true));
    line += `, bare HTTP upload ${(count / bares.at(-1)!).toFixed(1)}/s, node:http upload ${(count / nodes.at(-1)!).toFixed(1)}/s`;
    log(line);
  }
  const floor = Math.min(...floors);
  const svc = Math.min(...svcs);
  const floorName =
    b.settings.dialect === 'sqlite'
      ? 'write + fsync of the same bytes under the data folder'
      : 'INSERT of the same bytes (bytea) through pg';
  b.add({
    name: `upload 1 MB receipts to records (${count} a round, ${UPLOAD_CONCURRENCY} at a time, best of ${ROUNDS}; ${loads.join('; ')})`,
    unit: 'receipts/s',
    throughput: count / svc,
    floor: count / floor,
    floorName,
    minShare: 0.5,
  });
  b.add({
    name: `bare HTTP upload of the same 1 MB bodies, stored as the floor stores them (bench/upload-floor-server.ts: a Fastify route, nothing else; reported: what HTTP costs before svc does anything; ${count} a round, ${UPLOAD_CONCURRENCY} at a time, best of ${ROUNDS}, each round after svc's)`,
    unit: 'receipts/s',
    throughput: count / Math.min(...bares),
    floor: count / floor,
    floorName,
    reported: true,
  });
  b.add({
    name: `node:http upload of the same 1 MB bodies, stored as the floor stores them (bench/upload-floor-server.ts with HTTP=node: no framework, the body gathered and stored; reported: the least an upload over HTTP costs in Node; ${count} a round, ${UPLOAD_CONCURRENCY} at a time, best of ${ROUNDS}, each round after the bare route's)`,
    unit: 'receipts/s',
    throughput: count / Math.min(...nodes),
    floor: count / floor,
    floorName,
    reported: true,
  });
  if (cluster) {
    b.add({
      name: `upload 1 MB receipts to records, svc at WORKERS=${cluster.workers} (reported beside the one process: ${count} a round, ${UPLOAD_CONCURRENCY} at a time, best of ${ROUNDS}, each round right after the one-process side's; ${clusterLoads.join('; ')})`,
      unit: 'receipts/s',
      throughput: count / Math.min(...clustered),
      floor: count / floor,
      floorName,
      reported: true,
    });
  }
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Downloads `url` to nowhere, reading as it comes; the bytes read. */
async function drain(url: string): Promise<number> {
  const res = await fetch(url);
  if (res.status !== 200 || !res.body) throw new Error(`download → ${res.status}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Uint8Array).length;
  return bytes;
}

/**
 * (b) FILES receipts of 10 MB, then DOWNLOADS concurrent downloads of them (each file DOWNLOADS / FILES times),
 * ROUNDS times, the server's RSS sampled every 20 ms: before, the highest while they run, and after (a second
 * after the last ends). Flat: the growth does not scale with the bytes in flight (1,000 MB), and a second round
 * grows no further than the first (nothing kept).
 */
async function serving(b: Bench, bearer: string): Promise<void> {
  const records = await newRecords(b, bearer, FILES);
  const links: string[] = [];
  for (const id of records) links.push(await upload(b, bearer, id, pdfOf(LARGE)));
  const pid = b.server.child.pid!;
  await new Promise((r) => setTimeout(r, 1000));
  for (let round = 0; round < ROUNDS; round++) {
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 20);
    const load = uptime();
    const started = performance.now();
    const served = await Promise.all(Array.from({ length: DOWNLOADS }, (_, i) => drain(links[i % FILES]!)));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(pid));
    await new Promise((r) => setTimeout(r, 1000));
    const after = rssMb(pid);
    const bytes = served.reduce((a, n) => a + n, 0);
    if (bytes !== DOWNLOADS * LARGE) throw new Error(`served ${bytes} bytes, not ${DOWNLOADS * LARGE}`);
    const text = `RSS ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at most, ${after.toFixed(0)} MB after; ${(bytes / MB).toFixed(0)} MB served in ${seconds.toFixed(1)} s, ${(bytes / MB / seconds).toFixed(0)} MB/s; ${load} → ${uptime()}`;
    log(`serving round ${round + 1}: ${text}`);
    b.add({
      name: `${DOWNLOADS} concurrent downloads of 10 MB receipts (${FILES} files), round ${round + 1}: server RSS growth, peak − before (${text})`,
      unit: 'MB',
      throughput: peak - before,
      // A download holds a chunk or two, not its file: 100 files held whole would be 1,000 MB.
      targetMax: 2 * DOWNLOADS,
    });
  }
}

/**
 * `npm run bench -- --receipts [--db postgres] [--quick] [--no-docs]` (issue 32, "Measured"): the real server (one
 * process) on a new database; (a) 1 MB receipts uploaded to records (raw PDF bodies, an Idempotency-Key each, as
 * the SDK sends them) beside the raw write floor of the same storage in the same run (SQLite's files: write +
 * fsync under the data folder; PostgreSQL: INSERT of the same bytes through pg), target ≥ 50%; (b) the server's
 * RSS while 100 concurrent downloads of 10 MB receipts run. Each figure carries the load (`uptime`) at its start
 * and end: the machine is shared. Writes bench/results/<date>-<db>-receipts.json|md and the `<db>-receipts`
 * block of docs/performance.md (not with docs false).
 */
export async function receiptsBench(settings: Settings, docs: boolean): Promise<void> {
  const rec = recorder();
  const db = await database(settings);
  const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '0', TOKEN_RATE_LIMIT_MAX: '0', LOG_LEVEL: 'warn', WORKERS: '1' };
  const count = settings.quick ? 20 : 200;
  try {
    const b = await startBench(settings, db.url, env, rec);
    try {
      const { bearer } = await b.client();
      // A second server on the same database with a worker per core, for the uploads' reported row.
      const workers = os.availableParallelism();
      let cluster: Served | null = null;
      if (workers > 1)
        cluster = await serve(
          [path.join(settings.root, 'dist/server.js')],
          { ...env, WORKERS: String(workers) },
          settings.port + 7,
        );
      const bareServer = (http: 'fastify' | 'node', port: number) =>
        serve(
          ['--import', 'tsx', path.join(settings.root, 'bench/upload-floor-server.ts')],
          settings.dialect === 'sqlite'
            ? { HTTP: http, DIR: path.join(path.dirname(sqlitePath(db.url)), `bare-uploads-${http}`) }
            : { HTTP: http, DATABASE_URL: db.url },
          port,
        );
      const bare = await bareServer('fastify', settings.port + 9);
      const node = await bareServer('node', settings.port + 10);
      try {
        await uploads(b, bearer, count, cluster && { url: cluster.url, workers }, bare.url, node.url);
      } finally {
        await cluster?.stop();
        await bare.stop();
        await node.stop();
      }
      await serving(b, bearer);
    } finally {
      await b.stop();
    }
  } finally {
    await db.drop();
  }
  const files = writeReport(
    settings.root,
    settings.dialect,
    { 'uploads a round': count },
    rec.scenarios,
    docs,
    'receipts',
  );
  log(`wrote ${files.join(', ')}`);
}
