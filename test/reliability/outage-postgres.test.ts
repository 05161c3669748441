import { afterAll, expect, it } from 'vitest';
import { eachDialect } from '../support/dialects.js';
import { expectErrorShape } from '../support/expect.js';
import { report, ServedDatabase, sleep } from '../support/reliability.js';
import {
  connectionsByApp,
  connectionsTo,
  ensurePostgres,
  expectAllOrNothing,
  FAIL_FAST_MS,
  setupOutage,
  startPostgres,
  stopPostgres,
  type Sent,
} from '../support/reliability-outage.js';

const POOL = 5;

// Not describeServed: the database is made inside the test, so that PostgreSQL is known to be up again (or
// started) before it is dropped, whatever the test leaves behind.
eachDialect(
  'PostgreSQL stopped and started during traffic',
  () => {
    let served: ServedDatabase | undefined;
    afterAll(async () => {
      await ensurePostgres();
      await served?.close();
    });

    it('answers 503 fast while it is down, is not ready, writes nothing in part, recovers by itself, leaks no connection', async () => {
      try {
        served = await ServedDatabase.create('postgres');
        const name = new URL(served.database.url).pathname.slice(1);
        const url = new URL(served.database.url);
        url.searchParams.set('application_name', 'svc_outage');
        const server = await served.start({ DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: String(POOL) });
        const { api, url: valuesUrl, write, storedTags } = await setupOutage(served, server.url);
        const sent: Sent[] = [];
        // Three writes at a time until `done` says so: by time before the outage (load only: nothing counts them);
        // during and after it, until a dozen answers have come (a stop can take seconds on a loaded machine).
        const traffic = async (done: () => boolean) => {
          while (!done()) {
            await Promise.all(Array.from({ length: 3 }, async () => sent.push(await write())));
          }
        };
        const forMs = (ms: number) => {
          const end = Date.now() + ms;
          return () => Date.now() >= end;
        };
        await traffic(forMs(1500));
        const before = await connectionsTo(name);
        let stoppedAt = -1;
        const down = traffic(() => stoppedAt >= 0 && sent.length - stoppedAt >= 12);
        await sleep(300);
        await stopPostgres();
        stoppedAt = sent.length;
        await down;
        const duringOutage = sent.slice(stoppedAt);
        const ready = await api.request('GET', '/readyz');
        expect(ready.status).toBe(503);
        expectErrorShape(ready, 'SERVICE_UNAVAILABLE');
        expect(duringOutage.length).toBeGreaterThan(5);
        for (const s of duringOutage) {
          expect(s.res.status, s.res.text).toBe(503);
          expectErrorShape(s.res, 'SERVICE_UNAVAILABLE');
          expect(s.res.ms).toBeLessThan(FAIL_FAST_MS);
        }
        expect(sent.every((s) => s.res.status === 200 || s.res.status === 503)).toBe(true);

        await startPostgres();
        const restarted = Date.now();
        let recoveredMs = -1;
        for (let i = 0; i < 150 && recoveredMs < 0; i++) {
          if ((await api.request('GET', '/readyz')).status === 200) recoveredMs = Date.now() - restarted;
          else await sleep(200);
        }
        expect(recoveredMs).toBeGreaterThanOrEqual(0);
        const afterStart = sent.length;
        // A dozen answers after recovery, however long they take: each must be a 200.
        await traffic(() => sent.length - afterStart >= 12);
        expect(sent.slice(afterStart).map((s) => s.res.status)).toEqual(sent.slice(afterStart).map(() => 200));
        expect(server.child.exitCode).toBeNull();

        const retried = await expectAllOrNothing(api, valuesUrl, sent, storedTags);
        const after = await connectionsTo(name);
        const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
        expect(after['idle in transaction'] ?? 0).toBe(0);
        const serverConnections = (await connectionsByApp(name)).svc_outage ?? 0;
        // The pool, and the grant cache's one listening connection (docs/operations.md, "Connections").
        expect(serverConnections).toBeLessThanOrEqual(POOL + 1);
        report('outage [postgres]', {
          requests: sent.length,
          answered_503: duringOutage.length,
          max_503_ms: Math.round(Math.max(...duringOutage.map((s) => s.res.ms))),
          recovered_ms: recoveredMs,
          connections_before: total(before),
          connections_after: total(after),
          server_connections_after: serverConnections,
          ...Object.fromEntries(Object.entries(retried).map(([k, v]) => [`retry_${k.replace(/ /g, '_')}`, v])),
        });
      } finally {
        await ensurePostgres();
      }
    });
  },
  { only: 'postgres' },
);
