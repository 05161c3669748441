import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { INGEST, item } from '../support/accounting.js';
import { newAccountId } from '../support/context.js';
import { expectErrorShape } from '../support/expect.js';
import { valuesUrl } from '../support/field-values.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import { describeBouncer, LISTENER, POOL } from '../support/pgbouncer-nodes.js';
import { ROOT } from '../support/processes.js';
import { report, sleep, tally } from '../support/reliability.js';
import { sql } from 'kysely';
import { storedKeys, storedRecordRows, storedValues } from '../support/stored.js';

/**
 * Two svc nodes through one PgBouncer in transaction mode (describeBouncer, test/support/pgbouncer-nodes.ts): they
 * start without the migrator, share POOL server connections among many clients, and run one write per
 * Idempotency-Key. pgbouncer.records.test.ts drives records through them and kills one.
 */
const RACE = 40;
const BATCHES = 8;
/** Kysely's migrator lock (a session-level advisory lock), read from the installed Kysely. */
const MIGRATOR_LOCK = /const LOCK_ID = BigInt\('(\d+)'\)/.exec(
  fs.readFileSync(path.join(ROOT, 'node_modules/kysely/dist/esm/dialect/postgres/postgres-adapter.js'), 'utf8'),
)![1]!;

describeBouncer('two nodes through PgBouncer in transaction mode', (bounced) => {
  const { clients, directClient, serverBackends, lockWaiters, advisoryLocks } = bounced;

  it('starts two nodes through PgBouncer on the migrated database without the migrator (its lock held elsewhere meanwhile)', async () => {
    // The migrator's lock, held on a direct connection: a node that ran the migrator would wait for it (an hour).
    const holder = await directClient();
    try {
      await holder.query(`select pg_advisory_lock(${MIGRATOR_LOCK})`);
      const started = performance.now();
      await bounced.startNodes();
      const ms = Math.round(performance.now() - started);
      for (const node of bounced.nodes) {
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
    expect((await bounced.bouncer.pool(bounced.name))?.pool_mode).toBe('transaction');
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
        const [backends, pool] = await Promise.all([serverBackends(), bounced.bouncer.pool(bounced.name)]);
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
    const stored = await storedValues(bounced, a!.accountId, fieldId);
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
    const stored = await storedValues(bounced, a!.accountId, fieldId);
    expect(stored.map((v) => v.value).sort()).toEqual(body.items.map((i) => i.value).sort());
    expect((await storedKeys(bounced, a!.clientId)).filter((k) => k === key)).toEqual([key]);
    // Both nodes replay it now.
    for (const client of [a!, b!]) {
      const again = await client.post(valuesUrl(fieldId), body, { 'idempotency-key': key });
      expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([200, 'true', firsts[0]!.body]);
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
    const records = await storedRecordRows(bounced, a!.accountId);
    expect(records.map((r) => r.source_id).sort()).toEqual(['once-1', 'once-2']);
    report('pgbouncer: one key, two nodes', {
      requests: RACE,
      ran: 1,
      replayed: counts['200 replayed'] ?? 0,
      in_use_409: counts['409 IDEMPOTENCY_KEY_IN_USE'] ?? 0,
    });
  });

  it("keeps each worker's grant listener on a direct connection (DATABASE_LISTEN_URL): a revocation reaches both nodes", async () => {
    const [a, b] = await clients(newAccountId());
    for (const client of [a!, b!]) expect((await client.get('/v1/fields')).status).toBe(200);
    // A worker opens its listener with its first authenticated request: on the direct URL, never through PgBouncer
    // (where LISTEN hears nothing). Both nodes have served one.
    const listening = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from pg_stat_activity
            where datname = current_database() and application_name = ${LISTENER} and query ilike 'listen %'`.execute(
            bounced.db.direct,
          )
        ).rows[0]!.n,
      );
    await bounced.until('a listener of each node, connected directly', async () => (await listening()) >= 2);
    await authService.revokeClient(bounced.db, a!.clientId);
    for (const client of [a!, b!]) {
      await bounced.until('the revoked token refused', async () => (await client.get('/v1/fields')).status === 401);
    }
    report('pgbouncer: grant listeners', { direct_listeners: await listening() });
  });
});
