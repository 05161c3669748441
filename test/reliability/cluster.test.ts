import { randomUUID } from 'node:crypto';
import { expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { migrationsPending } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { startCluster, type ClusterServer } from '../support/cluster.js';
import { createTestDatabase } from '../support/databases.js';
import { slowPost, untilClosed } from '../support/draining.js';
import { describeServed, report } from '../support/reliability.js';
import { storedFields } from '../support/stored.js';
import { until } from '../support/wait.js';

const METRICS_TOKEN = 'metrics-token-0123456789';

/** A GET on a connection of its own (so that the primary hands each to the next worker). */
async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { connection: 'close', ...headers } });
  return { status: res.status, text: await res.text() };
}

/** The sum of a counter's series whose labels contain `labels`, from Prometheus text. */
function counter(text: string, name: string, labels: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

/** The pids of the worker processes that logged a completed request to `url`, one per request (since `from`). */
const servingPids = (server: ClusterServer, url: string, from: number) =>
  [
    ...server
      .output()
      .slice(from)
      .matchAll(/"pid":(\d+)[^\n]*"route":"([^"]+)"/g),
  ]
    .filter((m) => m[2] === url)
    .map((m) => Number(m[1]));

/** The workers that served `count` requests to `url` since `from`, once all of them are logged (after the answer). */
const servedBy = async (server: ClusterServer, url: string, from: number, count: number) =>
  new Set(
    await until(`${count} requests to ${url} in the log`, () => {
      const pids = servingPids(server, url, from);
      return pids.length >= count && pids;
    }),
  );

/**
 * GETs of /readyz and /healthz in turn, each on a connection of its own, until stopped: what a balancer's checks and
 * its traffic meet. Requests keep a draining worker listening (it closes once none has come for a second). `since()`
 * marks a moment: the answers to the requests sent after it, in `after`.
 */
function probe(url: string) {
  const after: { path: string; status: number }[] = [];
  let marked = false;
  let stopped = false;
  let sent = 0;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const path = i % 2 === 0 ? '/readyz' : '/healthz';
      const sentAfter = marked;
      sent++;
      const { status } = await get(`${url}${path}`);
      if (sentAfter) after.push({ path, status });
    }
  })();
  return {
    after,
    since: () => (marked = true),
    sent: () => sent,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** WORKERS=2: `node dist/server.js` as the primary of two workers on one port. */
describeServed('WORKERS: one port, every core', (t) => {
  it('serves from both workers on one port, replaces a killed worker, aggregates /metrics and drains on SIGTERM (not ready, still serving, then closed)', async () => {
    // A request may take a minute (the drain's limit is that plus 15 s): the test's pace is not the server's concern.
    const server = await startCluster({
      DATABASE_URL: t.served.database.url,
      METRICS_TOKEN,
      RATE_LIMIT_MAX: '0',
      REQUEST_TIMEOUT_MS: '60000',
    });
    onTestFinished(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    const first = server.workerPids();
    expect(first).toHaveLength(2);
    expect(first.every((pid) => pid !== server.child.pid)).toBe(true);

    // One port, both workers: connections are handed round-robin.
    let mark = server.output().length;
    for (let i = 0; i < 20; i++) expect((await get(`${server.url}/healthz`)).status).toBe(200);
    expect(await servedBy(server, '/healthz', mark, 20)).toEqual(new Set(first));

    // /metrics: the set's counts, not one worker's; METRICS_TOKEN still guards it.
    expect((await get(`${server.url}/metrics`)).status).toBe(401);
    const auth = { authorization: `Bearer ${METRICS_TOKEN}` };
    const metrics = await get(`${server.url}/metrics`, auth);
    expect(metrics.status).toBe(200);
    expect(counter(metrics.text, 'svc_http_requests_total', 'route="/healthz",status="200"')).toBe(20);
    expect(metrics.text).toMatch(/^svc_cluster_workers 2$/m);

    // A worker killed: the other serves meanwhile, the primary starts a replacement in its slot.
    mark = server.output().length;
    process.kill(first[1]!, 'SIGKILL');
    await server.waitFor(/worker died; starting another/, mark);
    const during = await Promise.all(Array.from({ length: 10 }, () => get(`${server.url}/healthz`)));
    expect(during.map((r) => r.status)).toEqual(Array(10).fill(200));
    await server.waitFor(/"worker":1,"worker_pid":\d+,"msg":"worker listening"/, mark);
    const replaced = server.workerPids();
    expect(replaced[0]).toBe(first[0]);
    expect(replaced[1]).not.toBe(first[1]);
    mark = server.output().length;
    for (let i = 0; i < 10; i++) expect((await get(`${server.url}/healthz`)).status).toBe(200);
    expect(await servedBy(server, '/healthz', mark, 10)).toEqual(new Set(replaced));
    const after = (await get(`${server.url}/metrics`, auth)).text;
    expect(after).toMatch(/^svc_cluster_worker_restarts_total 1$/m);

    // SIGTERM: every worker drains; the request in flight is answered before the set exits 0.
    const api = await t.served.client(server.url, ['fields.write']);
    const inFlight = slowPost(
      `${server.url}/v1/fields`,
      { authorization: `Bearer ${api.token}`, 'idempotency-key': randomUUID() },
      JSON.stringify({ name: `Drained ${'x'.repeat(200)}`, group: 'USER' }),
    );
    await inFlight.received; // a worker has the headers and half the body
    const checks = probe(server.url);
    mark = server.output().length;
    server.child.kill('SIGTERM');
    await server.waitFor(/draining every worker/, mark);
    await server.waitFor(/draining in-flight requests[\s\S]*draining in-flight requests/, mark);
    // Both workers still serve, but say they are not ready: a balancer takes the node out of rotation. (A request
    // sent after both said they drain is handled after they began.)
    checks.since();
    await until('a /readyz and a /healthz sent to draining workers', () => {
      const paths = checks.after.map((a) => a.path);
      return paths.includes('/readyz') && paths.includes('/healthz');
    });
    await checks.stop();
    const statuses = (path: string) => checks.after.filter((a) => a.path === path).map((a) => a.status);
    expect(statuses('/readyz')).toEqual(statuses('/readyz').map(() => 503));
    expect(statuses('/healthz')).toEqual(statuses('/healthz').map(() => 200));
    // Once no request has come for a second the listener closes, the request in flight still unfinished.
    await untilClosed(server.url);
    expect(server.child.exitCode).toBeNull(); // still draining the request
    inFlight.finish();
    const answer = await inFlight.answer;
    expect(answer.status).toBe(200);
    const exit = await server.exited;
    expect([exit.code, exit.signal]).toEqual([0, null]);
    expect(
      server
        .output()
        .slice(mark)
        .match(/draining in-flight requests, then exiting/g),
    ).toHaveLength(2);
    expect(await storedFields(t.served, api.accountId)).toHaveLength(1);
    report(`cluster [${t.dialect}]`, { workers: 2, requests: 39 + checks.sent(), restarts: 1, drained: 1 });
  });

  it('counts one rate-limit budget per client across the workers without Redis', async () => {
    // A window no run outlasts: the budget is spent by count alone.
    const server = await startCluster({
      DATABASE_URL: t.served.database.url,
      RATE_LIMIT_MAX: '6',
      RATE_LIMIT_WINDOW_SECONDS: '3600',
    });
    onTestFinished(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    const api = await t.served.client(server.url, ['fields.read']);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${server.url}/v1/fields`, {
        headers: { authorization: `Bearer ${api.token}`, connection: 'close' },
      });
      await res.text();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('starts without the migrator (and its session lock) when no migration is pending', async () => {
    expect(await migrationsPending(t.served.db)).toBe(false);
    const fresh = await createTestDatabase(t.dialect);
    const db = openDatabase(loadConfig({ DATABASE_URL: fresh.url }).database, { poolSize: 1 });
    try {
      expect(await migrationsPending(db)).toBe(true);
    } finally {
      await db.close();
      await fresh.drop();
    }
  });
});
