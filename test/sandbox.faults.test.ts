import { randomUUID } from 'node:crypto';
import { expect, it, vi } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { ACCOUNTS, faultsUrl, newAccount, operator, SANDBOX } from './support/sandbox.js';
import { until } from './support/wait.js';

/** The sandbox's faults: what the operator sets on a client, met by that client's next requests. */
describeEachDialect(
  'sandbox faults',
  (t) => {
    it('faults 429, 500 and 503 hit the next N requests of their client only, then end', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx);
      const other = await newAccount(ctx);
      const set = await operator(ctx).post(faultsUrl(creds.client_id), { kind: '429', count: 2, retry_after: 7 });
      expect(set.status, set.text).toBe(200);
      expect(set.body).toEqual({
        client_id: creds.client_id,
        kind: '429',
        count: 2,
        fraction: null,
        delay_ms: 1000,
        retry_after: 7,
        method: null,
        route: null,
      });
      for (let i = 0; i < 2; i++) {
        expect((await other.api.get('/v1/fields')).status).toBe(200);
        const hit = await api.get('/v1/fields');
        expect(hit.status).toBe(429);
        expect(hit.headers['retry-after']).toBe('7');
        expect(hit.body).toEqual(errorBody('RATE_LIMITED'));
      }
      expect((await api.get('/v1/fields')).status).toBe(200);

      await operator(ctx).post(faultsUrl(creds.client_id), { kind: '503', retry_after: 3 });
      const unavailable = await api.get('/v1/fields');
      expect([unavailable.status, unavailable.headers['retry-after']]).toEqual([503, '3']);
      expect(unavailable.body).toEqual(errorBody('SERVICE_UNAVAILABLE'));

      // A 500 on a write: the request never ran, so nothing is stored.
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: '500' });
      const failed = await api.create('/v1/fields', { name: 'X', group: 'ACCOUNTING' });
      expect(failed.status).toBe(500);
      expect(failed.body).toEqual(errorBody('INTERNAL_ERROR'));
      expect((await api.get('/v1/fields')).body.items).toEqual([]);
    });

    it('a fraction lasts until cleared; delay holds the next request for delay_ms, then ends', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx);
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: '500', fraction: 1 });
      for (let i = 0; i < 3; i++) expect((await api.get('/v1/fields')).status).toBe(500);
      const cleared = await operator(ctx).request('DELETE', faultsUrl(creds.client_id));
      expect([cleared.status, cleared.body]).toEqual([200, {}]);
      expect((await api.get('/v1/fields')).status).toBe(200);

      // The delay is a timer of this process (the app runs in it): the test holds the timers and moves them on, so
      // that the request waits until they reach delay_ms, and no longer, however slowly the machine runs.
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: 'delay', delay_ms: 3000, count: 1 });
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      // The delays asked of the faked setTimeout, seen through a wrapper put back before the real timers are. (Not
      // vi.spyOn: vitest restores its spies between files, and this one's original is the fake, which would then be
      // every later file's setTimeout in this worker, its timers never firing.)
      const faked = globalThis.setTimeout;
      const delays: unknown[] = [];
      globalThis.setTimeout = Object.assign((...args: Parameters<typeof setTimeout>) => {
        delays.push(args[1]);
        return faked(...args);
      }, faked);
      try {
        let answered = false;
        const delayed = api.get('/v1/fields').finally(() => (answered = true));
        await until('the delay on its timer', () => delays.includes(3000));
        vi.advanceTimersByTime(2999);
        for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
        expect(answered).toBe(false);
        vi.advanceTimersByTime(1);
        expect((await delayed).status).toBe(200);
        // count 1: the next request waits on no timer (held, one would never end).
        expect((await api.get('/v1/fields')).status).toBe(200);
      } finally {
        globalThis.setTimeout = faked;
        vi.useRealTimers();
      }
    });

    it('refuses count with fraction (400) and an unknown or revoked client (404)', async () => {
      const ctx = t.ctx;
      const { creds } = await newAccount(ctx);
      const both = await operator(ctx).post(faultsUrl(creds.client_id), { kind: '500', count: 1, fraction: 0.5 });
      expect(both.status).toBe(400);
      expect(both.body.error_code).toBe('INVALID_REQUEST');
      const kind = await operator(ctx).post(faultsUrl(creds.client_id), { kind: '404' });
      expect(kind.status).toBe(400);
      await operator(ctx).request('DELETE', `${ACCOUNTS}/${creds.account_id}`);
      for (const id of [creds.client_id, 'cli_unknown']) {
        const res = await operator(ctx).post(faultsUrl(id), { kind: '500' });
        expect(res.status).toBe(404);
        expect(res.body).toEqual(errorBody('NOT_FOUND', { details: { client_id: id } }));
        expect((await operator(ctx).request('DELETE', faultsUrl(id))).status).toBe(404);
      }
    });

    it('drop_after_commit: the change commits, the answer is lost; a retry with the key is replayed', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx);
      const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const token = api.token!;
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: 'drop_after_commit' });
      const key = randomUUID();
      const send = () =>
        fetch(`${address}/v1/fields`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' }),
        });
      await expect(send()).rejects.toThrow();
      const stored = (await api.get('/v1/fields')).body.items;
      expect(stored.map((f: any) => f.name)).toEqual(['GL Account']);

      const retry = await send();
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await retry.json()).toEqual(stored[0]);
      expect((await api.get('/v1/fields')).body.items).toEqual(stored);
    });
  },
  SANDBOX,
);
