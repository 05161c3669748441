import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { INGEST, item, RECORDS } from '../support/accounting.js';
import { newAccountId } from '../support/context.js';
import { expectErrorShape } from '../support/expect.js';
import { describeBouncer, killNode } from '../support/pgbouncer-nodes.js';
import { integrityProblems, report, sleep, type HttpApi, type HttpResponse } from '../support/reliability.js';
import { Workload } from '../support/reliability-workload.js';
import { workloadStored } from '../support/reliability-workload-stored.js';
import { storedRecordRows } from '../support/stored.js';

/**
 * Records through two svc nodes behind one PgBouncer in transaction mode (describeBouncer,
 * test/support/pgbouncer-nodes.ts): the review cycle with pollers following it, and a node killed with
 * transactions open. What is stored is read directly.
 */
const WORKLOADS = 4;
const OPS = 30;
/** Ingestions in flight on the node that is killed, and records in each. */
const IN_FLIGHT = 3;
const BATCH_RECORDS = 100;

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

describeBouncer('two nodes through PgBouncer in transaction mode', (bounced) => {
  const { clients, directClient, advisoryLocks, lockWaiters, until } = bounced;
  beforeAll(() => bounced.startNodes());

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

    expect(await integrityProblems(bounced.db)).toEqual([]);
    let records = 0;
    let exported = 0;
    for (const { workload, poller } of accounts) {
      expect(await workloadStored(workload, bounced.db)).toEqual(workload.expected());
      // Every record seen by the poller at its stored version, and no (id, version) seen twice.
      const rows = await storedRecordRows(bounced, workload.api.accountId);
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
      (await storedRecordRows(bounced, a!.accountId)).filter((r) => sourceIds.includes(r.source_id ?? '')).length;
    try {
      const sent = batches.map((batch) =>
        a!.post(INGEST, batch.body, { 'idempotency-key': batch.key }).catch(() => null),
      );
      await until(`${IN_FLIGHT} ingestions waiting for the clock`, async () => (await lockWaiters()) === IN_FLIGHT);
      expect(await advisoryLocks()).toBe(IN_FLIGHT);

      const mark = bounced.bouncer.output().length;
      const victim = bounced.nodes[0]!;
      await killNode(victim);
      bounced.nodes = bounced.nodes.filter((n) => n !== victim);
      // Every request in flight died with the node: no answer.
      expect(await Promise.all(sent)).toEqual(Array(IN_FLIGHT).fill(null));
      // PgBouncer saw each client leave mid-transaction and closed its server connection.
      await until('PgBouncer closing the dead clients’ server connections', async () => {
        const closed = bounced.bouncer
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
    expect(await storedRecordRows(bounced, a!.accountId)).toHaveLength(1 + IN_FLIGHT * BATCH_RECORDS);
    expect(await integrityProblems(bounced.db)).toEqual([]);
    report('pgbouncer: SIGKILL mid-transaction', {
      in_flight: IN_FLIGHT,
      refused_while_orphaned: IN_FLIGHT,
      ran_on_retry: ran.length,
    });
  });
});
