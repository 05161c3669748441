/**
 * `npm run bench:security [-- --db postgres] [-- --duration S]`: issue 28's hostile-input figures, measured, not
 * timed in a test. The real server (dist/server.js, one process) on a fresh database of the dialect; `/healthz` is
 * asked one request at a time for `duration` seconds while the server is quiet, then again while floods of hostile
 * bodies are sent at it, 12 at once:
 * - **anonymous**: the sign-in body of 500,000 unknown members (5.4 MB) that stalled the service before;
 * - **token, over the limit**: a 5.6 MB batch of 500,000 unknown members (over the values route's 5 MiB limit);
 * - **token, within the limit**: a 4.9 MB batch of 440,000 unknown members, read, parsed and validated.
 * Printed for each: the statuses and largest answer of the hostile requests, /healthz p50/p99 beside the quiet p99
 * (target: within 10×), and the server's RSS beside its idle RSS (target: within 2×). Rate limits are off, the
 * worst case (an attacker with many tokens or addresses). The server runs pinned to core 0; the flood, in a process of
 * its own, and the probe (this process) on core 1, so that the figures are the server's own event loop, not the
 * attacker's use of the same core (where taskset exists; else unpinned, and the table says so).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { call, token } from './lib/api.js';
import { database, log, svc, type Settings } from './lib/context.js';
import { serve } from './lib/processes.js';

const { values: args } = parseArgs({
  options: {
    flood: { type: 'string' },
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    'pg-url': {
      type: 'string',
      default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const settings: Pick<Settings, 'dialect' | 'pgUrl'> = {
  dialect: args.db === 'postgres' ? 'postgres' : 'sqlite',
  pgUrl: args['pg-url']!,
};
const duration = Number(args.duration);
const CONCURRENT = 12;

interface Flood {
  name: string;
  path: string;
  body: Buffer;
  headers: Record<string, string>;
}

/** Sends `flood` CONCURRENT at a time until `until()` says stop; tallies statuses and the largest answer. */
async function sendFlood(base: string, flood: Flood, until: () => boolean) {
  const statuses: Record<string, number> = {};
  let largest = 0;
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const request = http.request(new URL(flood.path, base), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': flood.body.length, ...flood.headers },
      });
      // Counted once: the answer, or the error of a connection the server closed without one. A server that answers
      // 413 from Content-Length may close while the body is still being written (EPIPE after the answer).
      let counted = false;
      const count = (status: string, bytes: number) => {
        if (counted) return;
        counted = true;
        statuses[status] = (statuses[status] ?? 0) + 1;
        largest = Math.max(largest, bytes);
        resolve();
      };
      request.on('response', (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => count(String(res.statusCode ?? 0), bytes));
        res.on('error', () => count(String(res.statusCode ?? 0), bytes));
      });
      request.on('error', () => count('no answer', 0));
      request.end(flood.body);
    });
  await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      while (!until()) {
        sent++;
        await one();
      }
    }),
  );
  return { statuses, largest, sent };
}

/** Asks /healthz one request at a time on a kept-alive connection for `seconds`: latency percentiles in ms. */
async function probe(base: string, seconds: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      http
        .get(new URL('/healthz', base), { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        })
        .on('error', reject);
    });
    times.push(performance.now() - started);
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (q: number) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(2));
  return { requests: times.length, p50: at(0.5), p99: at(0.99), max: Number(times[times.length - 1]!.toFixed(1)) };
}

const members = (count: number) => Array.from({ length: count }, (_, i) => `"m${i}":1`).join(',');

/** The flood child: sends the flood named in --flood (a JSON file) until its parent says stop on stdin. */
async function floodChild(specFile: string): Promise<void> {
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8')) as {
    base: string;
    flood: Omit<Flood, 'body'> & { body: string };
  };
  let done = false;
  process.stdin.on('data', () => (done = true));
  const result = await sendFlood(spec.base, { ...spec.flood, body: fs.readFileSync(spec.flood.body) }, () => done);
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

const pinned = (() => {
  try {
    execFileSync('taskset', ['-c', '1', 'true']);
    return os.availableParallelism() >= 2;
  } catch {
    return false;
  }
})();

/** Runs the flood in a child process (on core 1 when pinned) until `stop()`; resolves with its tally. */
function startFlood(base: string, flood: Flood, dir: string) {
  const bodyFile = path.join(dir, `${flood.name.replace(/\W+/g, '-')}.json`);
  fs.writeFileSync(bodyFile, flood.body);
  const specFile = `${bodyFile}.spec`;
  fs.writeFileSync(specFile, JSON.stringify({ base, flood: { ...flood, body: bodyFile } }));
  const command = [
    ...(pinned ? ['taskset', '-c', '1'] : []),
    process.execPath,
    ...process.execArgv,
    process.argv[1]!,
    '--flood',
    specFile,
  ];
  const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const finished = new Promise<{ statuses: Record<string, number>; largest: number; sent: number }>((resolve) =>
    child.on('exit', () =>
      resolve(JSON.parse(out) as { statuses: Record<string, number>; largest: number; sent: number }),
    ),
  );
  return {
    async stop() {
      child.stdin.end('stop\n');
      return finished;
    },
  };
}

async function main(): Promise<void> {
  if (pinned) execFileSync('taskset', ['-cp', '1', String(process.pid)], { stdio: 'ignore' });
  execFileSync(process.execPath, ['scripts/build-if-changed.mjs'], { cwd: root, stdio: 'inherit' });
  const db = await database({ ...settings, root, port: 0, quick: false, values: 0, records: 0, duration } as Settings);
  const env = {
    DATABASE_URL: db.url,
    RATE_LIMIT_MAX: '0',
    TOKEN_RATE_LIMIT_MAX: '0',
    SIGN_IN_RATE_LIMIT_MAX: '0',
    LOG_LEVEL: 'info',
    WORKERS: '1',
  };
  svc(root, ['migrate'], env);
  const creds = JSON.parse(
    svc(root, ['clients', 'create', '--account', 'acct_bench', '--scopes', 'fields.write field_values.write'], env),
  ) as { client_id: string; client_secret: string };
  const port = 19_000 + Math.floor(Math.random() * 1000);
  const server = await serve(
    [path.join(root, 'dist/server.js')],
    env,
    port,
    '/healthz',
    pinned ? ['taskset', '-c', '0'] : [],
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-security-'));
  try {
    const bearer = await token(server.url, creds.client_id, creds.client_secret);
    const auth = { authorization: `Bearer ${bearer}` };
    const field = await call<{ svc_id: string }>(`${server.url}/v1/fields`, {
      method: 'POST',
      token: bearer,
      headers: { 'idempotency-key': 'bench-field' },
      body: { name: 'GL', group: 'ACCOUNTING' },
    });
    const values = `/v1/fields/${field.svc_id}/values`;
    const floods: Flood[] = [
      {
        name: 'anonymous sign-in, 500,000 members',
        path: '/auth/session',
        body: Buffer.from(`{${members(500_000)}}`),
        headers: {},
      },
      {
        name: 'token, batch over its limit, 500,000 members',
        path: values,
        body: Buffer.from(`{"items":[{"value":"v",${members(500_000)}}]}`),
        headers: { ...auth, 'idempotency-key': 'bench-hostile-1' },
      },
      {
        name: 'token, batch within its limit, 440,000 members',
        path: values,
        body: Buffer.from(`{"items":[{"value":"v",${members(440_000)}}]}`),
        headers: { ...auth, 'idempotency-key': 'bench-hostile-2' },
      },
    ];
    // Warm up, then the quiet figures.
    await probe(server.url, 2);
    server.resetRss();
    const quiet = await probe(server.url, duration);
    const idleRss = server.maxRssMb();
    const lines = [
      `# Hostile bodies (${settings.dialect}, ${new Date().toISOString()}; ${CONCURRENT} at a time, rate limits off; ${pinned ? 'server on core 0, flood and probe on core 1' : "unpinned: the flood shares the server's cores"})`,
      '',
      `Quiet: /healthz p50 ${quiet.p50} ms, p99 ${quiet.p99} ms, max ${quiet.max} ms (${quiet.requests} requests, one at a time); RSS ${idleRss.toFixed(0)} MB.`,
      '',
      '| flood | bodies | statuses | largest answer | /healthz p50 / p99 (max) | p99 ÷ quiet p99 | RSS peak | ÷ idle |',
      '|---|---|---|---|---|---|---|---|',
    ];
    for (const flood of floods) {
      server.resetRss();
      const sending = startFlood(server.url, flood, dir);
      const during = await probe(server.url, duration);
      const sent = await sending.stop();
      const rss = server.maxRssMb();
      const ratio = quiet.p99 > 0 ? during.p99 / quiet.p99 : Infinity;
      const line = `| ${flood.name} (${(flood.body.length / 1e6).toFixed(1)} MB) | ${sent.sent} | ${JSON.stringify(sent.statuses)} | ${sent.largest} B | ${during.p50} / ${during.p99} ms (${during.max}) | ${ratio.toFixed(1)}× | ${rss.toFixed(0)} MB | ${(rss / idleRss).toFixed(2)}× |`;
      lines.push(line);
      log(line);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await server.stop();
    await db.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (args.flood) await floodChild(args.flood);
else await main();
