/**
 * `npm run bench [-- --db postgres] [-- --values N --records N --duration S --quick]`
 *
 * Measures svc as an operator would: the real server in one child process, load from autocannon over
 * loopback on the same machine, 1,000,000 field values in one field and 1,000,000 accounting records. Every
 * scenario is printed with its floor from the same run and its target as a ratio to it (issue 16): a bare
 * Fastify route for request rates, and data floors (the SQL the request ran, captured from a second server and
 * run again through the bare driver, plus JSON.stringify of its answer: bench/lib/capture.ts, data-floor.ts) for
 * pages, polls, queries, creates and export results. Results go to bench/results/<date>.json and .md;
 * docs/performance.md is rewritten with the latest table.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { call, token } from './lib/api.js';
import { consoleFirstLoadKb } from './lib/console-load.js';
import { captureServer, type Captured, type CaptureServer } from './lib/capture.js';
import { exportUpdateFloor, insertFloor, openRaw, readFloor, type Raw } from './lib/data-floor.js';
import { load, type LoadResult } from './lib/load.js';
import { serve, type Served } from './lib/processes.js';
import { newId } from '../src/lib/ids.js';
import { nowMicros } from '../src/lib/clock.js';
import { bulkMoveFloor, codingFloor } from './lib/review-floor.js';
import { writeReport, type Scenario } from './lib/report.js';
import { floorText, ratioText, targetText, verdict } from './lib/targets.js';
import { deliveryFigures, senderFloor, startReceiver } from './lib/webhooks.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    values: { type: 'string' },
    records: { type: 'string' },
    duration: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'pg-url': {
      type: 'string',
      default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const quick = args.quick;
const VALUES = Number(args.values ?? (quick ? 20_000 : 1_000_000));
const RECORDS = Number(args.records ?? (quick ? 20_000 : 1_000_000));
const DURATION = Number(args.duration ?? (quick ? 3 : 10));
const dialect = args.db === 'postgres' ? 'postgres' : 'sqlite';
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const PORT = 18_000 + Math.floor(Math.random() * 1000);

function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

async function database(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_bench_${randomBytes(4).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
    return {
      url: `sqlite:${path.join(dir, `${name}.sqlite`)}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = new pg.Client({ connectionString: args['pg-url'] });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(args['pg-url']!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: args['pg-url'] });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

function svc(argv: string[], env: Record<string, string>): string {
  return execFileSync(process.execPath, [path.join(ROOT, 'bin/svc.js'), ...argv], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Several runs of one scenario as one: requests over their total time; the slowest slice's percentiles. */
function combine(runs: LoadResult[]): LoadResult {
  const seconds = runs.reduce((t, r) => t + (r.rps > 0 ? r.requests / r.rps : 0), 0);
  const requests = runs.reduce((t, r) => t + r.requests, 0);
  return {
    requests,
    rps: seconds > 0 ? requests / seconds : 0,
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    non2xx: runs.reduce((t, r) => t + r.non2xx, 0),
    errors: runs.reduce((t, r) => t + r.errors, 0),
  };
}

const rate = (r: LoadResult, per = 1) => ({
  throughput: r.rps * per,
  p50: r.p50,
  p99: r.p99,
  errors: r.errors + r.non2xx,
});

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  const scenarios: Scenario[] = [];
  // The server whose memory is watched; each scenario's line says the highest RSS seen while it ran.
  let watched: Served | null = null;
  const add = (s: Scenario) => {
    scenarios.push(s);
    const rss = watched ? `, RSS ≤ ${watched.maxRssMb().toFixed(0)} MB` : '';
    const against = s.floor !== undefined ? ` | ${floorText(s)}, ${ratioText(s)}` : '';
    const goal = targetText(s) ? ` | target ${targetText(s)}: ${verdict(s)}` : '';
    log(
      `${s.name}: ${s.throughput.toFixed(0)} ${s.unit}${s.p50 !== undefined ? `, p50 ${s.p50} ms, p99 ${s.p99} ms` : ''}${rss}${against}${goal}`,
    );
  };

  // The floors.
  const floorServer = await serve(['--import', 'tsx', path.join(ROOT, 'bench/floor-server.ts')], {}, PORT + 1, '/');
  const floorLoad = await load({ url: `${floorServer.url}/`, durationSeconds: DURATION });
  await floorServer.stop();
  add({ name: 'floor: bare Fastify GET', unit: 'req/s', ...rate(floorLoad) });

  const db = await database();
  // One process: the figures (and the RSS read from the child) are one server's. Its webhooks may go to the
  // bench's receiver on 127.0.0.1 (plain http, a loopback address: an operator's setting, docs/webhooks.md).
  const env = {
    DATABASE_URL: db.url,
    RATE_LIMIT_MAX: '0',
    TOKEN_RATE_LIMIT_MAX: '0',
    LOG_LEVEL: 'warn',
    WORKERS: '1',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  };
  try {
    const creds = JSON.parse(
      svc(
        [
          'clients',
          'create',
          '--account',
          'bench',
          '--scopes',
          'fields.write field_values.write accounting.record.read accounting.record.write accounting.record.admin accounting.record.review webhooks.write',
        ],
        env,
      ),
    );
    let server: Served = await serve([path.join(ROOT, 'dist/server.js')], env, PORT);
    watched = server;
    let rssMax = 0;
    const bearer = await token(server.url, creds.client_id, creds.client_secret);
    const auth = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
    const field = await call(`${server.url}/v1/fields`, {
      method: 'POST',
      token: bearer,
      body: { name: 'GL Account', group: 'ACCOUNTING' },
      headers: { 'idempotency-key': randomUUID() },
    });
    const valuesUrl = `${server.url}/v1/fields/${field.svc_id}/values`;

    // The data floors replay what a second server's requests ran (bench/lib/capture.ts): one is started on the
    // same database for each group of captures and stopped again, so that it is not running while load runs.
    let pragmas: string[] = [];
    const capturing = async <T>(
      work: (c: CaptureServer, headers: Record<string, string>) => Promise<T>,
    ): Promise<T> => {
      const c = await captureServer(ROOT, env, PORT + 2);
      try {
        pragmas = c.pragmas();
        const bearer = await token(c.url, creds.client_id, creds.client_secret);
        return await work(c, { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' });
      } finally {
        await c.stop();
      }
    };
    const onRaw = async <T>(work: (raw: Raw) => Promise<T>): Promise<T> => {
      const raw = await openRaw(db.url, pragmas);
      try {
        return await work(raw);
      } finally {
        await raw.close();
      }
    };
    // What each captured request ran, one line (a statement repeated in a row counted, not repeated).
    const statementsOf = (name: string, captured: Captured) => {
      const runs: { sql: string; n: number }[] = [];
      for (const st of captured.statements) {
        const sql = st.sql.replace(/\s+/g, ' ').trim().slice(0, 70);
        if (runs.at(-1)?.sql === sql) runs.at(-1)!.n++;
        else runs.push({ sql, n: 1 });
      }
      log(
        `${name} ran ${captured.statements.length} statements: ${runs.map((r) => (r.n > 1 ? `${r.n} × ${r.sql}` : r.sql)).join(' | ')}`,
      );
    };
    const dataFloor = { floorName: 'data' } as const;

    // The insert floor: the create request's own INSERT statements (captured from one create of 1000 values into a
    // field of its own), run on new rows of that field through the bare driver, 1000 per transaction, with the
    // server's pragmas (synchronous = FULL...).
    const valuesItems = (from: number) =>
      Array.from({ length: 1000 }, (_, i) => ({
        value: `Account ${from + i}`,
        remote_id: `R${from + i}`,
        value_id: `V${from + i}`,
      }));
    const createCapture = await capturing(async (c, headers) => {
      const floorField = (
        await c.request('/v1/fields', {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': randomUUID() },
          body: JSON.stringify({ name: 'Insert floor', group: 'ACCOUNTING' }),
        })
      ).answer as { svc_id: string };
      const created = await c.request(`/v1/fields/${floorField.svc_id}/values`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ items: valuesItems(0) }),
      });
      return { fieldId: floorField.svc_id, created };
    });
    statementsOf('create 1000 values', createCapture.created);
    const madeAt = nowMicros();
    const rawInsert = await onRaw((raw) =>
      insertFloor(raw, createCapture.created, 'field_values', quick ? 20 : 200, (column, row) => {
        const n = 1000 + row;
        switch (column) {
          case 'account_id':
            return 'bench';
          case 'field_id':
            return createCapture.fieldId;
          case 'svc_id':
            return newId('efo');
          case 'value':
            return `Account ${n}`;
          case 'remote_id':
            return `R${n}`;
          case 'value_id':
            return `V${n}`;
          case 'is_disabled':
            return 0;
          case 'created_at':
          case 'updated_at':
            return madeAt;
          default:
            throw new Error(`insert floor: the service inserts a column the floor does not fill: ${column}`);
        }
      }),
    );
    add({
      name: "floor: the create request's INSERTs of 1000 values, raw driver, one transaction each",
      unit: 'values/s',
      throughput: rawInsert,
    });

    // create: 1000 values per request until VALUES exist; bodies are built before the clock starts so that the
    // load generator measures the server, not its own JSON.
    const createBodies = Array.from({ length: Math.ceil(VALUES / 1000) }, (_, n) => ({
      headers: { ...auth, 'idempotency-key': `create-${n}` },
      body: JSON.stringify({
        items: Array.from({ length: 1000 }, (_, i) => ({
          value: `Account ${n * 1000 + i}`,
          remote_id: `R${n * 1000 + i}`,
          value_id: `V${n * 1000 + i}`,
        })),
      }),
    }));
    let batch = 0;
    const createLoad = await load({
      url: valuesUrl,
      method: 'POST',
      headers: auth,
      connections: 4,
      amount: createBodies.length,
      setupRequest: (request) => ({ ...request, ...createBodies[batch++ % createBodies.length] }),
    });
    createBodies.length = 0;
    add({
      name: 'create values, 1000 per request',
      unit: 'values/s',
      ...rate(createLoad, 1000),
      floor: rawInsert,
      ...dataFloor,
      minShare: 0.8,
    });

    const firstPage = await call(`${valuesUrl}?limit=1000`, { token: bearer });
    const sample: string[] = firstPage.items.map((v: { svc_id: string }) => v.svc_id);
    // A cursor 90% into the list, reached by walking it as a client would.
    let cursor: string | null = null;
    const depth = Math.floor((VALUES * 0.9) / 1000);
    for (let i = 0; i < depth; i++) {
      const page: { next_cursor: string | null } = await call(
        `${valuesUrl}?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
        { token: bearer },
      );
      cursor = page.next_cursor;
    }
    // The get is the first request of its token on that server: its SQL includes the token's grant lookup, which
    // the measured server mostly answers from memory (docs/design.md).
    const valueCaptures = await capturing(async (c, headers) => ({
      get: await c.request(`/v1/fields/${field.svc_id}/values/${sample[0]}`, { headers }),
      first: await c.request(`/v1/fields/${field.svc_id}/values?limit=1000`, { headers }),
      deep: await c.request(`/v1/fields/${field.svc_id}/values?limit=1000&cursor=${cursor}`, { headers }),
    }));
    statementsOf('get one value', valueCaptures.get);
    statementsOf('list 1000 values', valueCaptures.first);
    const getLoad = await load({
      url: `${valuesUrl}/${sample[0]}`,
      headers: auth,
      durationSeconds: DURATION,
      requests: sample.map((id) => ({ path: `/v1/fields/${field.svc_id}/values/${id}` })),
    });
    const getFloor = await onRaw((raw) => readFloor(raw, [valueCaptures.get], DURATION / 2));
    add({
      name: "floor: get one value's SQL (grant lookup included) and JSON, one at a time",
      unit: 'req/s',
      throughput: getFloor,
    });
    add({
      name: 'get one value (50 connections)',
      unit: 'req/s',
      ...rate(getLoad),
      floor: floorLoad.rps,
      floorP99: floorLoad.p99,
      minShare: 0.5,
      maxP99Times: 3,
    });

    const list100 = await load({
      url: `${valuesUrl}?limit=100`,
      headers: auth,
      durationSeconds: DURATION,
      connections: 10,
    });
    add({ name: 'list values, limit 100, first page', unit: 'pages/s', ...rate(list100), floor: floorLoad.rps });
    // The first and the deep page in alternating slices of the same total time, so that a change in the
    // machine's speed during the run (this one varies by half within an hour) weighs on both alike.
    const slices = Math.max(1, Math.round(DURATION / 2));
    const first: LoadResult[] = [];
    const deepRuns: LoadResult[] = [];
    for (let i = 0; i < slices; i++) {
      first.push(
        await load({
          url: `${valuesUrl}?limit=1000`,
          headers: auth,
          durationSeconds: DURATION / slices,
          connections: 10,
        }),
      );
      deepRuns.push(
        await load({
          url: `${valuesUrl}?limit=1000&cursor=${cursor}`,
          headers: auth,
          durationSeconds: DURATION / slices,
          connections: 10,
        }),
      );
    }
    // Their data floors, alternating too.
    const firstFloor: number[] = [];
    const deepFloor: number[] = [];
    await onRaw(async (raw) => {
      for (let i = 0; i < 2; i++) {
        firstFloor.push(await readFloor(raw, [valueCaptures.first], DURATION / 8));
        deepFloor.push(await readFloor(raw, [valueCaptures.deep], DURATION / 8));
      }
    });
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    add({
      name: 'list values, limit 1000, first page',
      unit: 'pages/s',
      ...rate(combine(first)),
      floor: mean(firstFloor),
      ...dataFloor,
      maxTimes: 2,
    });
    add({
      name: `list values, limit 1000, page at depth ${depth * 1000}`,
      unit: 'pages/s',
      ...rate(combine(deepRuns)),
      floor: mean(deepFloor),
      ...dataFloor,
      maxTimes: 2,
    });

    // The coding pickers' search over the whole field: text in one value of all (the trigram index's case), and
    // text at the start of many (a prefix).
    const searchUrl = `${server.url}/internal/v1/fields/${field.svc_id}/values/search`;
    const rare = `ount ${Math.floor(VALUES * 0.7)}`;
    for (const [name, q] of [
      [`search values: "${rare}" (contained in 1 of ${VALUES})`, rare],
      ['search values: "Account 1" (the start of many)', 'Account 1'],
    ] as const) {
      const r = await load({
        url: `${searchUrl}?q=${encodeURIComponent(q)}&limit=20`,
        headers: auth,
        durationSeconds: DURATION / 2,
        connections: 4,
      });
      add({ name, unit: 'req/s', ...rate(r), floor: floorLoad.rps });
    }

    const updateBodies = Array.from({ length: quick ? 10 : 200 }, (_, n) => ({
      headers: { ...auth, 'idempotency-key': `update-${n}` },
      body: JSON.stringify({
        items: Array.from({ length: 1000 }, (_, i) => ({
          remote_id: `R${(n * 1000 + i) % VALUES}`,
          data: { value: `Renamed ${n}-${i}` },
        })),
      }),
    }));
    let updateBatch = 0;
    const updateLoad = await load({
      url: valuesUrl,
      method: 'PUT',
      headers: auth,
      connections: 4,
      amount: updateBodies.length,
      setupRequest: (request) => ({ ...request, ...updateBodies[updateBatch++ % updateBodies.length] }),
    });
    add({ name: 'update values, 1000 per request', unit: 'values/s', ...rate(updateLoad, 1000) });

    const seedStart = performance.now();
    const seeded = JSON.parse(
      // The account holds the value scenarios' field already: the demo fields are made beside it.
      svc(['seed', '--account', 'bench', '--records', String(RECORDS), '--values', '200', '--into-existing'], env),
    ) as { fields: { svc_id: string; name: string }[] };
    const seedSeconds = (performance.now() - seedStart) / 1000;
    add({
      name: `svc seed of ${RECORDS} records`,
      unit: 's',
      throughput: seedSeconds,
      targetMax: RECORDS >= 1_000_000 ? 180 : undefined,
    });

    rssMax = Math.max(rssMax, server.maxRssMb());
    await server.stop();
    watched = null;
    server = await serve([path.join(ROOT, 'dist/server.js')], env, PORT);
    watched = server;
    add({ name: 'start-up on the migrated database', unit: 'ms', throughput: server.startupMs, targetMax: 1000 });
    const firstLoad = await consoleFirstLoadKb(server.url);
    add({
      name: `console first load: JavaScript, gzipped (${firstLoad.files} file${firstLoad.files === 1 ? '' : 's'})`,
      unit: 'kB',
      throughput: firstLoad.kb,
      targetMax: 250,
    });
    const bearer2 = await token(server.url, creds.client_id, creds.client_secret);
    const auth2 = { authorization: `Bearer ${bearer2}`, 'content-type': 'application/json' };
    const records = `${server.url}/v3/accounting/records`;

    // Full poll: one client following next_cursor through every record. Every pollEvery-th page's cursor is kept:
    // the poll's data floor replays the SQL of those pages, spread over the whole poll.
    const pollStart = performance.now();
    let polled = 0;
    let next: string | null = null;
    let since = '2000-01-01T00:00:00Z';
    const pollEvery = Math.max(1, Math.floor(RECORDS / 500 / 40));
    const pollSample: string[] = [];
    let pageNo = 0;
    do {
      if (pageNo++ % pollEvery === 0) pollSample.push(`limit=500${next ? `&cursor=${next}` : ''}`);
      const page: { items: { updated_at: string }[]; next_cursor: string | null } = await call(
        `${records}?limit=500${next ? `&cursor=${next}` : ''}`,
        { token: bearer2 },
      );
      polled += page.items.length;
      // A poller's bound: updated_at[gt] halfway through the records.
      if (polled <= RECORDS / 2 && page.items.length > 0) since = page.items[page.items.length - 1]!.updated_at;
      next = page.next_cursor;
    } while (next);
    const pollRate = polled / ((performance.now() - pollStart) / 1000);

    const queries = [
      ['query records, limit 100', 'limit=100', false],
      [
        'query records, limit 500, review_status + source_type',
        'limit=500&review_status=READY_FOR_EXPORT&source_type=CARD',
        true,
      ],
      [
        'query records, limit 500, source_type=BILL + updated_at[gt] (half the records newer)',
        `limit=500&source_type=BILL&updated_at%5Bgt%5D=${encodeURIComponent(since)}`,
        true,
      ],
    ] as const;

    // Export results: 1000 READY_FOR_EXPORT records per request; 1000 more for the captured request, and
    // exportFloorBatches × 1000 more for its data floor.
    const exportFloorBatches = quick ? 2 : 20;
    const ready: string[] = [];
    let c: string | null = null;
    do {
      const page: { items: { id: string }[]; next_cursor: string | null } = await call(
        `${records}?limit=500&review_status=READY_FOR_EXPORT${c ? `&cursor=${c}` : ''}`,
        { token: bearer2 },
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

    const recordCaptures = await capturing(async (cs, headers) => {
      const pages: Captured[] = [];
      for (const query of pollSample) pages.push(await cs.request(`/v3/accounting/records?${query}`, { headers }));
      const byQuery: Captured[] = [];
      for (const [, query] of queries) byQuery.push(await cs.request(`/v3/accounting/records?${query}`, { headers }));
      // Last: it changes 1000 records.
      const exported = await cs.request('/v3/accounting/records/export-results', {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: exportBody(exportCaptureIds, -1),
      });
      return { pages, byQuery, exported };
    });
    statementsOf('a page of the poll', recordCaptures.pages[1] ?? recordCaptures.pages[0]!);
    statementsOf('export results', recordCaptures.exported);
    const pollFloor = await onRaw((raw) => readFloor(raw, recordCaptures.pages, DURATION / 2));
    const pageItems = recordCaptures.pages.map((p) => (p.answer as { items: unknown[] }).items.length);
    add({
      name: `full poll of ${polled} records through cursors`,
      unit: 'records/s',
      throughput: pollRate,
      // Pages per second of the sampled pages, times their mean size.
      floor: pollFloor * (pageItems.reduce((a, b) => a + b, 0) / pageItems.length),
      ...dataFloor,
      maxTimes: 2,
    });

    for (const [i, [name, query, targeted]] of queries.entries()) {
      // One connection: p50 is the latency of one query, not of a queue.
      const r = await load({ url: `${records}?${query}`, headers: auth2, durationSeconds: DURATION, connections: 1 });
      const queryFloor = await onRaw((raw) => readFloor(raw, [recordCaptures.byQuery[i]!], DURATION / 4));
      add({ name, unit: 'req/s', ...rate(r), floor: queryFloor, ...dataFloor, ...(targeted ? { maxTimes: 2 } : {}) });
    }

    const exportBodies = Array.from({ length: Math.floor(ready.length / 1000) }, (_, n) => ({
      headers: { ...auth2, 'idempotency-key': `export-${n}` },
      body: exportBody(ready.slice(n * 1000, n * 1000 + 1000), n),
    }));
    let exportBatch = 0;
    const exportLoad = await load({
      url: `${records}/export-results`,
      method: 'POST',
      headers: auth2,
      // autocannon refuses more connections than requests (a --quick database holds few ready records).
      connections: Math.min(2, exportBodies.length),
      amount: exportBodies.length,
      setupRequest: (request) => ({ ...request, ...exportBodies[exportBatch++ % exportBodies.length] }),
    });
    const exportFloor = await onRaw((raw) =>
      exportUpdateFloor(raw, recordCaptures.exported, exportCaptureIds, exportFloorIds),
    );
    add({
      name: "floor: the export request's UPDATEs of 1000 records, under the record clock, raw driver",
      unit: 'records/s',
      throughput: exportFloor,
    });
    add({
      name: 'export results, 1000 per request',
      unit: 'records/s',
      ...rate(exportLoad, 1000),
      floor: exportFloor,
      ...dataFloor,
      minShare: 0.8,
    });

    // The review workflow: coding one record per request, and moving 1000 records per request, each beside its
    // data floor (the same service work in this process, without HTTP) on other records of the same database.
    const internal = `${server.url}/internal/v1`;
    const gl = seeded.fields.find((f) => f.name.startsWith('Demo GL Account'))!;
    const glValues: { items: { svc_id: string }[] } = await call(
      `${server.url}/v1/fields/${gl.svc_id}/values?limit=50`,
      {
        token: bearer2,
      },
    );
    const codings = quick ? 200 : 2000;
    const moveBatches = quick ? 2 : 20;
    const underReview: { id: string; version: number; line: string }[] = [];
    let sc: string | null = null;
    do {
      const page: {
        items: { id: string; version: number; line_items: { id: string }[] }[];
        next_cursor: string | null;
      } = await call(
        `${internal}/accounting/records?review_status=REVIEW&single_entry=true&limit=500${sc ? `&cursor=${sc}` : ''}`,
        {
          token: bearer2,
        },
      );
      underReview.push(...page.items.map((r) => ({ id: r.id, version: r.version, line: r.line_items[0]!.id })));
      sc = underReview.length >= 2 * codings + 2 * moveBatches * 1000 ? null : page.next_cursor;
    } while (sc);
    const codingOf = (r: { id: string; version: number; line: string }, n: number) => ({
      id: r.id,
      input: {
        version: r.version,
        lines: [
          {
            line_id: r.line,
            field_values: [{ field_id: gl.svc_id, svc_id: glValues.items[n % glValues.items.length]!.svc_id }],
          },
        ],
      },
    });
    const codeHttp = underReview.slice(0, codings).map(codingOf);
    const codeFloor = underReview.slice(codings, 2 * codings).map(codingOf);
    let codeN = 0;
    const codeLoad = await load({
      url: `${internal}/accounting/records/x/coding`,
      method: 'POST',
      headers: auth2,
      connections: 4,
      amount: codeHttp.length,
      setupRequest: (request) => {
        const edit = codeHttp[codeN++ % codeHttp.length]!;
        return {
          ...request,
          path: `/internal/v1/accounting/records/${edit.id}/coding`,
          body: JSON.stringify(edit.input),
        };
      },
    });
    const codeFloorRate = await codingFloor(db.url, 'bench', codeFloor);
    add({ name: 'floor: code one record (service work, no HTTP)', unit: 'records/s', throughput: codeFloorRate });
    add({
      name: 'code one record per request',
      unit: 'records/s',
      ...rate(codeLoad),
      floor: codeFloorRate,
      floorName: 'service',
    });

    const moving = underReview.slice(2 * codings).map((r) => ({ id: r.id }));
    const batchesOf = (from: number) =>
      Array.from({ length: moveBatches }, (_, n) => ({
        review_status: 'READY_FOR_EXPORT' as const,
        records: moving.slice(from + n * 1000, from + n * 1000 + 1000),
      })).filter((b) => b.records.length === 1000);
    const moveHttp = batchesOf(0);
    const moveFloor = batchesOf(moveBatches * 1000);
    let moveN = 0;
    const moveLoad = await load({
      url: `${internal}/accounting/records/review-status`,
      method: 'POST',
      headers: auth2,
      connections: 2,
      amount: moveHttp.length,
      setupRequest: (request) => ({ ...request, body: JSON.stringify(moveHttp[moveN++ % moveHttp.length]) }),
    });
    const moveFloorRate = await bulkMoveFloor(db.url, 'bench', moveFloor);
    add({ name: 'floor: move 1000 records (service work, no HTTP)', unit: 'records/s', throughput: moveFloorRate });
    add({
      name: 'move 1000 records per request',
      unit: 'records/s',
      ...rate(moveLoad, 1000),
      floor: moveFloorRate,
      floorName: 'service',
    });

    const tokenLoad = await load({
      url: `${server.url}/oauth2/token`,
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${creds.client_id}:${creds.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
      durationSeconds: DURATION,
    });
    add({ name: 'token issuance', unit: 'req/s', ...rate(tokenLoad), floor: floorLoad.rps, minShare: 0.25 });

    // Webhooks (issue 20): events delivered per second to a local receiver, and the delay from commit to delivery.
    // The receiver (node:http in this process) is subscribed to ready_for_export through the API; records are then
    // moved to READY_FOR_EXPORT through the API, first one per request (2 at a time: the delay of a steady
    // trickle), then in moves of 1000 (a backlog: the delivery rate). A record's commit time is when the API
    // answered its move, an upper bound of the commit (the answer follows it), so the delays are lower bounds by
    // at most the answer's way back over loopback. Every delivery is verified with the SDK's verifyWebhook
    // afterwards, off the clock.
    const trickle = quick ? 200 : 1000;
    const backlogBatches = quick ? 1 : 3;
    const toMove: string[] = [];
    let rc: string | null = null;
    do {
      const page: { items: { id: string }[]; next_cursor: string | null } = await call(
        `${internal}/accounting/records?review_status=REVIEW&limit=500${rc ? `&cursor=${rc}` : ''}`,
        { token: bearer2 },
      );
      toMove.push(...page.items.map((r) => r.id));
      rc = toMove.length >= trickle + backlogBatches * 1000 ? null : page.next_cursor;
    } while (rc);
    if (toMove.length < trickle + backlogBatches * 1000) {
      throw new Error(`webhooks: too few records under review (${toMove.length})`);
    }
    const receiver = await startReceiver();
    try {
      const backlog = backlogBatches * 1000;
      const floorRate = await senderFloor(receiver.url, backlog);
      receiver.reset();
      add({
        name: `floor: ${backlog} signed POSTs to the receiver by the server's sender, 8 at a time, no database`,
        unit: 'events/s',
        throughput: floorRate,
      });
      const hook: { id: string; secret: string } = await call(`${server.url}/v1/webhooks`, {
        method: 'POST',
        token: bearer2,
        body: { url: receiver.url, event_types: ['accounting_record.ready_for_export'], description: 'bench' },
        headers: { 'idempotency-key': randomUUID() },
      });
      const move = async (ids: string[]): Promise<{ sent: number; answered: number }> => {
        const sent = performance.now();
        await call(`${internal}/accounting/records/review-status`, {
          method: 'POST',
          token: bearer2,
          body: { review_status: 'READY_FOR_EXPORT', records: ids.map((id) => ({ id })) },
        });
        return { sent, answered: performance.now() };
      };

      const trickleIds = toMove.slice(0, trickle);
      const trickleCommits = new Map<string, number>();
      let answerMs = 0;
      let nextId = 0;
      const mover = async () => {
        while (nextId < trickleIds.length) {
          const id = trickleIds[nextId++]!;
          const t = await move([id]);
          trickleCommits.set(id, t.answered);
          answerMs += t.answered - t.sent;
        }
      };
      await Promise.all([mover(), mover()]);
      await receiver.waitFor(trickle, 120_000);
      const steady = await deliveryFigures(hook.secret, receiver.arrivals, trickleCommits);
      receiver.reset();
      log(
        `webhooks, one record per move: ${steady.delivered} delivered and verified (${steady.duplicates} twice), delay max ${steady.max.toFixed(0)} ms; a move took ${(answerMs / trickle).toFixed(1)} ms on average from request to answer`,
      );

      const backlogIds = toMove.slice(trickle, trickle + backlog);
      const backlogCommits = new Map<string, number>();
      for (let b = 0; b < backlogBatches; b++) {
        const ids = backlogIds.slice(b * 1000, b * 1000 + 1000);
        const t = await move(ids);
        for (const id of ids) backlogCommits.set(id, t.answered);
      }
      await receiver.waitFor(backlog, 120_000);
      const burst = await deliveryFigures(hook.secret, receiver.arrivals, backlogCommits);
      log(
        `webhooks, ${backlogBatches} move${backlogBatches === 1 ? '' : 's'} of 1000: ${burst.delivered} delivered and verified (${burst.duplicates} twice), delay max ${burst.max.toFixed(0)} ms`,
      );
      const ms = (x: number) => Math.round(x * 10) / 10;
      add({
        name: `webhooks: ${steady.delivered} events to a local receiver, one record moved per request, 2 at a time (p50/p99: commit to delivery)`,
        unit: 'events/s',
        throughput: steady.rate,
        p50: ms(steady.p50),
        p99: ms(steady.p99),
        noFloor: true,
        reported: true,
      });
      add({
        name: `webhooks: ${burst.delivered} events to a local receiver, ${backlogBatches} move${backlogBatches === 1 ? '' : 's'} of 1000 records at once (p50/p99: commit to delivery, the queue included)`,
        unit: 'events/s',
        throughput: burst.rate,
        p50: ms(burst.p50),
        p99: ms(burst.p99),
        floor: floorRate,
        floorName: 'sender',
        reported: true,
      });
    } finally {
      await receiver.close();
    }

    add({
      name: 'server RSS, highest seen',
      unit: 'MB',
      throughput: Math.max(rssMax, server.maxRssMb()),
      targetMax: 300,
    });
    await server.stop();
  } finally {
    await db.drop();
  }
  const files = writeReport(ROOT, dialect, { values: VALUES, records: RECORDS, duration: DURATION }, scenarios);
  log(`wrote ${files.join(', ')}`);
}

await main();
