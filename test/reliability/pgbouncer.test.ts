import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { MIGRATIONS } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { ADMIN, INGEST, item, RECORDS } from '../support/accounting.js';
import { startCluster, type ClusterServer } from '../support/cluster.js';
import { newAccountId } from '../support/context.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { eachDialectNeeding } from '../support/dialects.js';
import { expectErrorShape } from '../support/expect.js';
import { valuesUrl } from '../support/field-values.js';
import { PgBouncer, pgbouncerInstalled } from '../support/pgbouncer.js';
import { ROOT, svc } from '../support/processes.js';
import {
  fetchToken,
  HttpApi,
  integrityProblems,
  report,
  sleep,
  tally,
  type HttpResponse,
} from '../support/reliability.js';
import { Workload } from '../support/reliability-workload.js';
import { workloadStored } from '../support/reliability-workload-stored.js';
import { storedKeys, storedRecordRows, storedValues } from '../support/stored.js';

/**
 * PgBouncer in transaction mode, as docs/operations.md describes it: `svc migrate` on a direct connection, then two
 * svc nodes (`node dist/server.js`, WORKERS=2 each) whose DATABASE_URL goes through one PgBouncer
 * (test/support/pgbouncer.ts) with 4 server connections for the database, so that every transaction of the four
 * workers runs on a server connection other transactions used before it. What is stored is read directly.
 */
const POOL = 4;
const RACE = 40;
const BATCHES = 8;
const WORKLOADS = 4;
const OPS = 30;
/** Ingestions in flight on the node that is killed, and records in each. */
const IN_FLIGHT = 3;
const BATCH_RECORDS = 100;
/** The test's own connections to PostgreSQL, told apart from PgBouncer's in pg_stat_activity. */
const DIRECT = 'svc-pgbouncer-test';
/** Kysely's migrator lock (a session-level advisory lock), read from the installed Kysely. */
const MIGRATOR_LOCK = /const LOCK_ID = BigInt\('(\d+)'\)/.exec(
  fs.readFileSync(path.join(ROOT, 'node_modules/kysely/dist/esm/dialect/postgres/postgres-adapter.js'), 'utf8'),
)![1]!;

/** A seeded generator (mulberry32): the workloads make the same operations on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Kills a node as a machine dies: its primary and its workers, SIGKILL, all at once. */
function killNode(node: ClusterServer): Promise<unknown> {
  node.child.kill('SIGKILL');
  for (const pid of node.workerPids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return node.exited;
}

/**
 * A poller of one account, as an integration follows the spec: `updated_at[gt]` the greatest seen, then
 * `next_cursor`; its pages come from each node in turn. `twice` lists every (id, version) it met again, or met
 * out of order.
 */
class Poller {
  readonly seen = new Map<string, number>();
  readonly twice: string[] = [];
  pages = 0;
  private last = '1970-01-01T00:00:00.000000Z';
  constructor(private readonly apis: HttpApi[]) {}

  /** One pass to the end of the changes; how many records it got. */
  async round(): Promise<number> {
    const since = this.last;
    let cursor: string | undefined;
    let got = 0;
    do {
      const query = { 'updated_at[gt]': since, limit: '25', ...(cursor ? { cursor } : {}) };
      const res = await this.apis[this.pages++ % this.apis.length]!.get(RECORDS, query);
      expect(res.status, res.text).toBe(200);
      for (const record of res.body.items) {
        const before = this.seen.get(record.id);
        if (before !== undefined && record.version <= before) this.twice.push(`${record.id}@${record.version}`);
        if (record.updated_at <= this.last) this.twice.push(`${record.id} at ${record.updated_at}, after ${this.last}`);
        this.seen.set(record.id, record.version);
        this.last = record.updated_at;
        got++;
      }
      cursor = res.body.next_cursor ?? undefined;
    } while (cursor);
    return got;
  }
}

const describeBouncer = eachDialectNeeding('PgBouncer', pgbouncerInstalled);

describeBouncer(
  'two nodes through PgBouncer in transaction mode',
  () => {
    let bouncer: PgBouncer | undefined;
    let database: TestDatabase | undefined;
    let db: Db;
    let name: string;
    /** The two nodes, started by the first test. */
    let nodes: ClusterServer[] = [];

    /** A client of `accountId` with a token from the first node, and the same client on each node. */
    const clients = async (accountId: string, scopes: readonly Scope[] = [...ADMIN, 'accounting.record.read']) => {
      const creds = await authService.createClient(db, accountId, [...scopes]);
      const token = await fetchToken(nodes[0]!.url, creds);
      return nodes.map((n) => new HttpApi(n.url, token, creds.account_id, creds.client_id));
    };
    /** A direct connection of the test's own (not through PgBouncer). */
    const directClient = async () => {
      const client = new pg.Client({ connectionString: database!.url, application_name: DIRECT });
      await client.connect();
      return client;
    };
    const count = async (query: RawBuilder<{ n: string | number }>) =>
      Number((await query.execute(db.direct)).rows[0]!.n);
    /** PostgreSQL backends of the database other than the test's: PgBouncer's server connections. */
    const serverBackends = () =>
      count(sql`select count(*) as n from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend' and application_name <> ${DIRECT}`);
    /** Backends of the database waiting for a lock. */
    const lockWaiters = () =>
      count(sql`select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`);
    /** Advisory locks held in the database: Idempotency-Key claims (and the migrator's lock). */
    const advisoryLocks = () =>
      count(sql`select count(*) as n from pg_locks l join pg_database d on d.oid = l.database
        where d.datname = current_database() and l.locktype = 'advisory' and l.granted`);
    const until = async (what: string, check: () => Promise<boolean>, ms = 10_000) => {
      const deadline = Date.now() + ms;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
        await sleep(10);
      }
    };

    beforeAll(async () => {
      bouncer = await PgBouncer.start({ poolSize: POOL });
      database = await createTestDatabase('postgres');
      name = new URL(database.url).pathname.slice(1);
      // Migrations over the direct connection, as the operator runs them (never through transaction mode).
      const migrated = await svc(['migrate'], { DATABASE_URL: database.url });
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(JSON.parse(migrated.stdout)).toEqual({ applied: Object.keys(MIGRATIONS) });
      const url = new URL(database.url);
      url.searchParams.set('application_name', DIRECT);
      db = openDatabase(loadConfig({ DATABASE_URL: url.toString() }).database, { poolSize: 3 });
    });
    afterAll(async () => {
      await Promise.all(nodes.map((n) => killNode(n)));
      await db?.close().catch(() => {});
      await bouncer?.stop();
      await database?.drop();
    });

    it('starts two nodes through PgBouncer on the migrated database without the migrator (its lock held elsewhere meanwhile)', async () => {
      // The migrator's lock, held on a direct connection: a node that ran the migrator would wait for it (an hour).
      const holder = await directClient();
      try {
        await holder.query(`select pg_advisory_lock(${MIGRATOR_LOCK})`);
        const env = { DATABASE_URL: bouncer!.url(name), WORKERS: '2', RATE_LIMIT_MAX: '0' };
        const started = performance.now();
        nodes = await Promise.all([startCluster(env), startCluster(env)]);
        const ms = Math.round(performance.now() - started);
        for (const node of nodes) {
          expect(node.workerPids()).toHaveLength(2);
          const ready = await fetch(`${node.url}/readyz`);
          expect(ready.status).toBe(200);
        }
        // Still ours, and the only advisory lock of the database: nobody took or queued for it.
        expect(await advisoryLocks()).toBe(1);
        expect(await lockWaiters()).toBe(0);
        const unlocked = await holder.query<{ ok: boolean }>(`select pg_advisory_unlock(${MIGRATOR_LOCK}) as ok`);
        expect(unlocked.rows[0]!.ok).toBe(true);
        report('pgbouncer: start', { nodes: 2, workers: 4, start_ms: ms });
      } finally {
        await holder.end();
      }
      expect((await bouncer!.pool(name))?.pool_mode).toBe('transaction');
    });

    it(`creates ${BATCHES} batches of 1000 values at once across both nodes on ${POOL} server connections`, async () => {
      const [a, b] = await clients(newAccountId());
      const fieldId = await a!.newField({ name: 'Bulk' });
      const batches = Array.from({ length: BATCHES }, (_, n) =>
        Array.from({ length: 1000 }, (_, i) => ({ value: `value ${n}-${i}`, remote_id: `r${n}-${i}` })),
      );
      // While the batches run: PostgreSQL's side (backends) and PgBouncer's (client connections, waiting clients).
      const most = { backends: 0, clients: 0, waiting: 0 };
      let done = false;
      const sampling = (async () => {
        while (!done) {
          const [backends, pool] = await Promise.all([serverBackends(), bouncer!.pool(name)]);
          most.backends = Math.max(most.backends, backends);
          most.clients = Math.max(most.clients, (pool?.cl_active ?? 0) + (pool?.cl_waiting ?? 0));
          most.waiting = Math.max(most.waiting, pool?.cl_waiting ?? 0);
          await sleep(5);
        }
      })();
      const started = performance.now();
      const responses = await Promise.all(
        batches.map((items, n) =>
          (n % 2 ? b! : a!).post(valuesUrl(fieldId), { items }, { 'idempotency-key': randomUUID() }),
        ),
      ).finally(() => (done = true));
      const ms = Math.round(performance.now() - started);
      await sampling;
      for (const [n, res] of responses.entries()) {
        expect(res.status, res.text).toBe(200);
        expect(res.headers['idempotent-replayed']).toBeUndefined();
        expect(res.body.items.map((v: { value: string; remote_id: string }) => [v.value, v.remote_id])).toEqual(
          batches[n]!.map((v) => [v.value, v.remote_id]),
        );
      }
      const stored = await storedValues({ db }, a!.accountId, fieldId);
      expect(stored).toHaveLength(BATCHES * 1000);
      // Stored as answered: each answered value once, under the id it was answered with.
      const answered: { svc_id: string; value: string; remote_id: string }[] = responses.flatMap((r) => r.body.items);
      expect(stored.map((v) => [v.svc_id, v.value, v.remote_id]).sort()).toEqual(
        answered.map((v) => [v.svc_id, v.value, v.remote_id]).sort(),
      );
      // Server connections were shared: more client connections than server connections, never more than POOL of them.
      expect(most.backends).toBeGreaterThan(0);
      expect(most.backends).toBeLessThanOrEqual(POOL);
      expect(most.clients).toBeGreaterThan(POOL);
      report('pgbouncer: value batches', {
        batches: BATCHES,
        values: stored.length,
        ms,
        most_server_connections: most.backends,
        most_client_connections: most.clients,
        most_clients_waiting: most.waiting,
      });
    });

    it(`runs one write for ${RACE} requests under one Idempotency-Key split between the two nodes`, async () => {
      const [a, b] = await clients(newAccountId());
      const fieldId = await a!.newField({ name: 'race' });
      const key = randomUUID();
      // No remote_id: a batch run twice would be stored twice, not refused.
      const body = { items: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })) };
      const responses = await Promise.all(
        Array.from({ length: RACE }, (_, i) =>
          (i % 2 ? b! : a!).post(valuesUrl(fieldId), body, { 'idempotency-key': key }),
        ),
      );
      const firsts = responses.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
      expect(tally(firsts)).toEqual({ '200': 1 });
      for (const r of responses) {
        if (r.status === 409) expectErrorShape(r, 'IDEMPOTENCY_KEY_IN_USE');
        else {
          expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: firsts[0]!.body });
        }
      }
      const counts = tally(responses);
      expect((counts['200'] ?? 0) + (counts['200 replayed'] ?? 0) + (counts['409 IDEMPOTENCY_KEY_IN_USE'] ?? 0)).toBe(
        RACE,
      );
      const stored = await storedValues({ db }, a!.accountId, fieldId);
      expect(stored.map((v) => v.value).sort()).toEqual(body.items.map((i) => i.value).sort());
      expect((await storedKeys({ db }, a!.clientId)).filter((k) => k === key)).toEqual([key]);
      // Both nodes replay it now.
      for (const client of [a!, b!]) {
        const again = await client.post(valuesUrl(fieldId), body, { 'idempotency-key': key });
        expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([
          200,
          'true',
          firsts[0]!.body,
        ]);
      }
      // Records too: one ingestion under one key, sent both ways at once, writes its records once.
      const ingestKey = randomUUID();
      const ingestBody = { items: [item({ source_id: 'once-1' }), item({ source_id: 'once-2' })] };
      const ingested = await Promise.all(
        Array.from({ length: RACE }, (_, i) =>
          (i % 2 ? b! : a!).post(INGEST, ingestBody, { 'idempotency-key': ingestKey }),
        ),
      );
      const ran = ingested.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
      expect(ran).toHaveLength(1);
      for (const r of ingested) {
        if (r.status === 409) expectErrorShape(r, 'IDEMPOTENCY_KEY_IN_USE');
        else expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: ran[0]!.body });
      }
      const records = await storedRecordRows({ db }, a!.accountId);
      expect(records.map((r) => r.source_id).sort()).toEqual(['once-1', 'once-2']);
      report('pgbouncer: one key, two nodes', {
        requests: RACE,
        ran: 1,
        replayed: counts['200 replayed'] ?? 0,
        in_use_409: counts['409 IDEMPOTENCY_KEY_IN_USE'] ?? 0,
      });
    });

    it('ingests, reviews, codes and exports records through both nodes while pollers follow every change once', async () => {
      /** One account per workload (its model is the account's whole state), its ops sent to either node in turn. */
      const accounts: { workload: Workload; apis: HttpApi[]; poller: Poller }[] = [];
      for (let w = 0; w < WORKLOADS; w++) {
        const apis = await clients(newAccountId());
        const remote = `bouncer-${w}`;
        const fieldId = await apis[w % 2]!.newField({ name: `bouncer ${w}`, remote_id: remote });
        const workload = new Workload(apis[0]!, fieldId, remote, `w${w}`, seeded(15 + w));
        accounts.push({
          workload,
          apis,
          poller: new Poller(await clients(apis[0]!.accountId, ['accounting.record.read'])),
        });
      }
      const kinds: Record<string, number> = {};
      let stop = false;
      const work = async ({ workload, apis }: (typeof accounts)[number], w: number) => {
        for (let n = 0; n < OPS; n++) {
          const op = workload.next();
          const res = await apis[(n + w) % 2]!.request(op.method, op.path, {
            body: op.body,
            headers: { 'idempotency-key': op.key },
          });
          expect(res.status, `${op.kind} ${res.text}`).toBe(200);
          workload.apply(op, res.body);
          kinds[op.kind] = (kinds[op.kind] ?? 0) + 1;
        }
      };
      const polling = async (poller: Poller) => {
        while (!stop) if ((await poller.round()) === 0) await sleep(20);
      };

      const started = performance.now();
      const polls = accounts.map((a) => polling(a.poller));
      await Promise.all(accounts.map((a, w) => work(a, w))).finally(() => (stop = true));
      await Promise.all(polls);
      for (const { poller } of accounts) while ((await poller.round()) > 0);
      const ms = Math.round(performance.now() - started);

      expect(await integrityProblems(db)).toEqual([]);
      let records = 0;
      let exported = 0;
      for (const { workload, poller } of accounts) {
        expect(await workloadStored(workload, db)).toEqual(workload.expected());
        // Every record seen by the poller at its stored version, and no (id, version) seen twice.
        const rows = await storedRecordRows({ db }, workload.api.accountId);
        expect(poller.twice).toEqual([]);
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.filter((r) => poller.seen.get(r.id) !== Number(r.version)).map((r) => r.id)).toEqual([]);
        expect([...poller.seen.keys()].sort()).toEqual(rows.map((r) => r.id).sort());
        records += rows.length;
        exported += rows.filter((r) => r.review_status === 'EXPORTED').length;
      }
      // The seeds make every step of the review cycle happen: ingested, reported exported and failed, re-opened,
      // coded, split, merged and approved.
      for (const kind of ['ingest', 'export', 'fail', 'reopen', 'code', 'split', 'merge', 'approve']) {
        expect(kinds[kind] ?? 0, kind).toBeGreaterThan(0);
      }
      expect(exported).toBeGreaterThan(0);
      report('pgbouncer: accounting', {
        operations: WORKLOADS * OPS,
        records,
        exported,
        poll_pages: accounts.reduce((sum, a) => sum + a.poller.pages, 0),
        ms,
        ...Object.fromEntries(Object.entries(kinds).map(([kind, n]) => [`ack_${kind}`, n])),
      });
    });

    it('SIGKILLs a node with ingestions in flight: the other node serves, and each killed key runs once on retry', async () => {
      const [a, b] = await clients(newAccountId());
      // The account's record clock exists; the test then holds it, so that the ingestions wait inside their
      // transactions, each with its Idempotency-Key claimed.
      await b!.newRecord({ source_id: 'before' });
      const blocker = await directClient();
      await blocker.query('begin');
      await blocker.query('select last_updated_at from account_record_clocks where account_id = $1 for update', [
        a!.accountId,
      ]);
      const batches = Array.from({ length: IN_FLIGHT }, (_, n) => {
        const sourceIds = Array.from({ length: BATCH_RECORDS }, (_, i) => `killed-${n}-${i}`);
        return { key: randomUUID(), sourceIds, body: { items: sourceIds.map((source_id) => item({ source_id })) } };
      });
      const storedOf = async (sourceIds: string[]) =>
        (await storedRecordRows({ db }, a!.accountId)).filter((r) => sourceIds.includes(r.source_id ?? '')).length;
      try {
        const sent = batches.map((batch) =>
          a!.post(INGEST, batch.body, { 'idempotency-key': batch.key }).catch(() => null),
        );
        await until(`${IN_FLIGHT} ingestions waiting for the clock`, async () => (await lockWaiters()) === IN_FLIGHT);
        expect(await advisoryLocks()).toBe(IN_FLIGHT);

        const mark = bouncer!.output().length;
        const victim = nodes[0]!;
        await killNode(victim);
        nodes = nodes.filter((n) => n !== victim);
        // Every request in flight died with the node: no answer.
        expect(await Promise.all(sent)).toEqual(Array(IN_FLIGHT).fill(null));
        // PgBouncer saw each client leave mid-transaction and closed its server connection.
        await until('PgBouncer closing the dead clients’ server connections', async () => {
          const closed = bouncer!
            .output()
            .slice(mark)
            .match(/client disconnect while server was not ready/g);
          return (closed?.length ?? 0) >= IN_FLIGHT;
        });

        // The other node serves meanwhile, reads and writes.
        expect((await fetch(`${b!.base}/readyz`)).status).toBe(200);
        const fieldId = await b!.newField({ name: 'after the kill' });
        const items = Array.from({ length: 1000 }, (_, i) => ({ value: `after ${i}` }));
        expect((await b!.newValues(fieldId, items)).map((v) => v.value)).toEqual(items.map((i) => i.value));

        // A backend waiting for a lock notices its client is gone only when the wait ends (PostgreSQL's default
        // client_connection_check_interval = 0): until then it holds its transaction and the claim in it, and a
        // retry is refused, with nothing stored.
        for (const batch of batches) {
          const refused = await b!.post(INGEST, batch.body, { 'idempotency-key': batch.key });
          expectErrorShape(refused, 'IDEMPOTENCY_KEY_IN_USE');
          expect(await storedOf(batch.sourceIds)).toBe(0);
        }
      } finally {
        await blocker.query('rollback');
        await blocker.end();
      }
      // The wait over, each orphaned transaction finds its connection closed and rolls back: the claims are gone.
      await until('the killed transactions to end', async () => (await advisoryLocks()) === 0);
      for (const batch of batches) expect(await storedOf(batch.sourceIds)).toBe(0);

      const ran: HttpResponse[] = [];
      for (const batch of batches) {
        const res = await b!.post(INGEST, batch.body, { 'idempotency-key': batch.key });
        expect(res.status, res.text).toBe(200);
        expect(res.headers['idempotent-replayed']).toBeUndefined();
        expect(res.body.items.map((r: { source_id: string }) => r.source_id)).toEqual(batch.sourceIds);
        expect(await storedOf(batch.sourceIds)).toBe(BATCH_RECORDS);
        ran.push(res);
      }
      for (const [n, batch] of batches.entries()) {
        const again = await b!.post(INGEST, batch.body, { 'idempotency-key': batch.key });
        expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([200, 'true', ran[n]!.body]);
        expect(await storedOf(batch.sourceIds)).toBe(BATCH_RECORDS);
      }
      expect(await storedRecordRows({ db }, a!.accountId)).toHaveLength(1 + IN_FLIGHT * BATCH_RECORDS);
      expect(await integrityProblems(db)).toEqual([]);
      report('pgbouncer: SIGKILL mid-transaction', {
        in_flight: IN_FLIGHT,
        refused_while_orphaned: IN_FLIGHT,
        ran_on_retry: ran.length,
      });
    });
  },
  { only: 'postgres' },
);
