import SqliteDatabase from 'better-sqlite3';
import { expect, it } from 'vitest';
import { expectErrorShape } from '../support/expect.js';
import { describeServed, report, sleep, type HttpResponse } from '../support/reliability.js';
import { expectAllOrNothing, FAIL_FAST_MS, setupOutage, type Sent } from '../support/reliability-outage.js';

describeServed(
  'SQLite file locked by another process',
  (t) => {
    it('answers writes 503 within the busy timeout, keeps reading, writes nothing in part, and recovers', async () => {
      const server = await t.served.start();
      const { api, url, write, storedTags } = await setupOutage(t.served, server.url);
      const sent: Sent[] = [await write()];
      const locker = new SqliteDatabase(t.served.database.url.slice('sqlite:'.length));
      let locked: Sent[];
      const health: HttpResponse[] = [];
      try {
        locker.exec('begin exclusive');
        const writes = Promise.all([write(), write()]);
        await sleep(200);
        health.push(await api.request('GET', '/healthz'));
        locked = await writes;
        sent.push(...locked);
        const list = await api.get(url);
        expect(list.status).toBe(200);
      } finally {
        locker.exec('rollback');
        locker.close();
      }
      for (const s of locked) {
        expect(s.res.status, s.res.text).toBe(503);
        expectErrorShape(s.res, 'SERVICE_UNAVAILABLE');
        expect(s.res.ms).toBeLessThan(FAIL_FAST_MS * 2);
      }
      sent.push(await write());
      expect(sent.at(-1)!.res.status).toBe(200);
      expect((await api.request('GET', '/readyz')).status).toBe(200);
      expect(server.child.exitCode).toBeNull();
      const retried = await expectAllOrNothing(api, url, sent, storedTags);
      report('outage [sqlite]', {
        locked_writes_503: locked.length,
        max_503_ms: Math.round(Math.max(...locked.map((s) => s.res.ms))),
        healthz_ms_while_locked: Math.round(health[0]!.ms),
        ...Object.fromEntries(Object.entries(retried).map(([k, v]) => [`retry_${k.replace(/ /g, '_')}`, v])),
      });
    });
  },
  { only: 'sqlite' },
);
