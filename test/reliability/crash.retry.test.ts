import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { ADMIN, INGEST, item } from '../support/accounting.js';
import { describeServed, HttpApi, integrityProblems, report, type ServedDatabase } from '../support/reliability.js';
import { until } from '../support/wait.js';

/** Batches sent at once to the process that is killed, records in each, and tries to catch one mid-way. */
const IN_FLIGHT = 4;
const BATCH_RECORDS = 100;
const ATTEMPTS = 6;

/** An ingestion of BATCH_RECORDS new records (two economic lines each), under a key of its own. */
function ingestion(tag: string) {
  const sourceIds = Array.from({ length: BATCH_RECORDS }, (_, i) => `${tag}-${i}`);
  const lines = [{ amount: { amount: 100, currency: 'USD' } }, { amount: { amount: 71.75, currency: 'USD' } }];
  return { key: randomUUID(), sourceIds, body: { items: sourceIds.map((source_id) => item({ source_id, lines })) } };
}

/** How many of `sourceIds` the account has: all or none of a batch. */
async function storedOf(served: ServedDatabase, accountId: string, sourceIds: string[]): Promise<number> {
  const rows = await served.db.direct
    .selectFrom('accounting_records')
    .select('source_id')
    .where('account_id', '=', accountId)
    .where('source_id', 'in', sourceIds)
    .execute();
  return rows.length;
}

/** Advisory locks held in the served PostgreSQL database (an idempotency key's claim is one, of its transaction). */
async function advisoryLocks(served: ServedDatabase): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
    where l.locktype = 'advisory' and d.datname = current_database()`.execute(served.db.direct);
  return rows[0]!.n;
}

/**
 * A batch cut mid-way by a SIGKILL is retried, under its Idempotency-Key, on another `node dist/server.js` of the
 * same database (crash.test.ts kills the one process that serves the clients' whole workload).
 */
describeServed('SIGKILL during batch writes', (t) => {
  it('answers at once, on another process, the retry of a request in flight at a SIGKILL, its claim gone with the dead process', async () => {
    const served = t.served;
    const survivor = await served.start();
    const api = await served.client(survivor.url, ADMIN);
    const waits: number[] = [];
    const outcomes = { attempts: 0, answered_before_kill: 0, replayed: 0, ran: 0 };
    while (outcomes.ran === 0 && outcomes.attempts < ATTEMPTS) {
      outcomes.attempts++;
      const victim = await served.start();
      const onVictim = new HttpApi(victim.url, api.token, api.accountId, api.clientId);
      const batches = Array.from({ length: IN_FLIGHT }, (_, b) => ingestion(`try${outcomes.attempts}-${b}`));
      const sent = batches.map((batch) =>
        onVictim.post(INGEST, batch.body, { 'idempotency-key': batch.key }).catch(() => null),
      );
      // Killed while a batch's transaction is open: that one is mid-way, the others anywhere around it.
      expect(await served.writeUnderWay()).toBe(true);
      victim.child.kill('SIGKILL');
      await victim.exited;
      // Waits count from the process's death (its exit as the operating system reports it), not from the signal.
      const diedAt = performance.now();
      // A key's claim is the dead process's own, and goes with it: on SQLite its write lock, released by the system
      // at its death; on PostgreSQL an advisory lock of its sessions, which end once the server sees them gone.
      if (t.dialect === 'postgres') {
        await until("the dead process's advisory locks to go", async () => (await advisoryLocks(served)) === 0);
      }
      const answers = await Promise.all(sent);
      await Promise.all(
        batches.map(async (batch, i) => {
          const answered = answers[i];
          if (answered) {
            expect(answered.status, answered.text).toBe(200);
            outcomes.answered_before_kill++;
            return;
          }
          // The answer was lost: the retry of the key on the process that lives is answered at once (a 409
          // IDEMPOTENCY_KEY_IN_USE would be a claim outliving its process).
          const before = await storedOf(served, api.accountId, batch.sourceIds);
          expect([0, BATCH_RECORDS]).toContain(before);
          const res = await api.post(INGEST, batch.body, { 'idempotency-key': batch.key });
          waits.push(performance.now() - diedAt);
          expect(res.status, res.text).toBe(200);
          if (res.headers['idempotent-replayed'] === 'true') outcomes.replayed++;
          else {
            expect(before).toBe(0);
            outcomes.ran++;
          }
          expect(await storedOf(served, api.accountId, batch.sourceIds)).toBe(BATCH_RECORDS);
        }),
      );
    }
    expect(await integrityProblems(served.db)).toEqual([]);
    report(`crash: retry on another process [${t.dialect}]`, {
      ...outcomes,
      longest_key_wait_ms: Math.round(Math.max(0, ...waits)),
    });
    // At least one batch was cut mid-way and ran again on the retry.
    expect(outcomes.ran).toBeGreaterThan(0);
  });
});
