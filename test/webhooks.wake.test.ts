import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import type { Db } from '../src/db/database.js';
import { openDatabase } from '../src/db/open.js';
import { loadConfig } from '../src/config.js';
import { EVENTS_CHANNEL, eventsBell, wakeOnEvents } from '../src/modules/webhooks/events.bell.js';
import { createDispatcher, type Dispatcher } from '../src/modules/webhooks/webhooks.dispatcher.js';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { DELIVERY_SCOPES, startReceiver, subscribe, webhookUrl } from './support/webhooks.js';

/**
 * An idle pause of an hour: a dispatcher that waited it out would deliver nothing within the test's ceiling, so
 * each delivery below arrives only because what made it due woke the dispatcher (events.bell.ts).
 */
const AN_HOUR_MS = 3_600_000;

/** A dispatcher as the server runs one (started, real clock), idle for an hour between looks; stopped at the end. */
function sleepyDispatcher(db: Db): Dispatcher {
  const dispatcher = createDispatcher({ db, allowPrivateTargets: true, idleMs: AN_HOUR_MS });
  dispatcher.start();
  onTestFinished(() => dispatcher.stop());
  return dispatcher;
}

describeEachDialect(
  'webhook deliveries wake the dispatcher rather than wait for its next look',
  (t) => {
    it('an event, a test event, a redelivery and an endpoint enabled are each delivered at once', async () => {
      const api = await t.ctx.as([...DELIVERY_SCOPES, ...ADMIN]);
      const receiver = await startReceiver();
      const hook = await subscribe(api, receiver.url, ['field_values.changed']);
      const dispatcher = sleepyDispatcher(t.ctx.db);
      const woken = wakeOnEvents(dispatcher, t.ctx.db);
      onTestFinished(() => woken.close());

      // An event of the API (field_values.changed), committed while the dispatcher waits.
      await dispatcher.whenIdle();
      const fieldId = await api.newField();
      await api.newValues(fieldId, [{ value: 'Travel' }]);
      await receiver.arrived(1);
      expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'field_values.changed' });

      // A test event (its delivery made with it). Each step starts with every outcome written and the loop asleep:
      // no claim an outcome makes for the place it frees (which needs no wake) can take the next delivery.
      await dispatcher.settled();
      await dispatcher.whenIdle();
      const test = await api.post(`${webhookUrl(hook.id)}/test`, {});
      expect(test.status, test.text).toBe(200);
      await receiver.arrived(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(test.body.id);

      // A redelivery: no new event, a delivery due again.
      await dispatcher.settled();
      await dispatcher.whenIdle();
      const first = JSON.parse(receiver.received[0]!.body) as { id: string };
      const again = await api.post(`${webhookUrl(hook.id)}/redeliver`, { event_id: first.id });
      expect([again.status, again.body]).toEqual([200, { redelivered: 1 }]);
      await receiver.arrived(3);
      expect(receiver.received[2]!.headers['webhook-id']).toBe(first.id);

      // A delivery waiting for its retry (its first attempt failed: due again in about 5 s, which the sleeping
      // dispatcher would not see), then its endpoint disabled (PAUSED) and enabled: due now, and delivered at once.
      await dispatcher.settled();
      await dispatcher.whenIdle();
      receiver.plan(['fail']);
      await api.newValues(fieldId, [{ value: 'Meals' }]);
      await receiver.arrived(4);
      const waiting = JSON.parse(receiver.received[3]!.body) as { id: string };
      await dispatcher.settled(); // every outcome written: no attempt under way when the endpoint is disabled
      await dispatcher.whenIdle();
      const off = await api.put(webhookUrl(hook.id), { status: 'DISABLED' });
      expect(off.status, off.text).toBe(200);
      const on = await api.put(webhookUrl(hook.id), { status: 'ENABLED' });
      expect(on.status, on.text).toBe(200);
      await receiver.arrived(5);
      expect([receiver.received[4]!.headers['webhook-id'], receiver.received[4]!.behaviour]).toEqual([
        waiting.id,
        'ok',
      ]);
      expect(receiver.received.map((r) => r.behaviour)).toEqual(['ok', 'ok', 'ok', 'fail', 'ok']);
    });

    it('a dispatcher with every place taken fans out the rest of a backlog as soon as a place is free', async () => {
      const api = await t.ctx.as([...DELIVERY_SCOPES, ...ADMIN]);
      const receiver = await startReceiver();
      await subscribe(api, receiver.url, ['field_values.changed']);
      // One place in all: the first step fans out its share of the backlog (200 events an endpoint) and claims one
      // delivery; each outcome claims the next made; once those are done, the rest must be fanned out at once, not
      // at the look an hour away.
      const dispatcher = createDispatcher({
        db: t.ctx.db,
        allowPrivateTargets: true,
        idleMs: AN_HOUR_MS,
        concurrency: 1,
        accountConcurrency: 1,
        endpointConcurrency: 1,
      });
      const fieldId = await api.newField();
      const events = 230;
      for (let i = 0; i < events; i++) await api.newValues(fieldId, [{ value: `Value ${i}` }]);
      dispatcher.start();
      onTestFinished(() => dispatcher.stop());
      await receiver.arrived(events);
      const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
      expect(ids.size).toBe(events);
    });

    it('a write transaction runs what waits for its commit after the commit, with its rows readable, and never after a rollback', async () => {
      const table = `wake_probe_${randomUUID().replaceAll('-', '')}`;
      await sql.raw(`create table ${table} (id integer primary key)`).execute(t.ctx.db.direct);
      onTestFinished(async () => void (await sql.raw(`drop table ${table}`).execute(t.ctx.db.direct)));
      const rings: number[] = [];
      const unlisten = eventsBell.listen(() => rings.push(rings.length));
      onTestFinished(unlisten);
      const count = async () =>
        Number(
          (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(t.ctx.db.direct)).rows[0]!.n,
        );

      // Rolled back: nothing runs.
      let ranAfterRollback = false;
      const refused = t.ctx.db.write(async (ex) => {
        await sql.raw(`insert into ${table} (id) values (1)`).execute(ex);
        ex.afterCommit!(() => (ranAfterRollback = true));
        throw new Error('rolled back on purpose');
      });
      await expect(refused).rejects.toThrow('rolled back on purpose');
      expect([ranAfterRollback, await count()]).toEqual([false, 0]);

      // Committed: runs once, after the commit (a read then, on another connection where there is one, sees the row).
      const seen: { read?: Promise<number> } = {};
      await t.ctx.db.write(async (ex) => {
        await sql.raw(`insert into ${table} (id) values (2)`).execute(ex);
        ex.afterCommit!(() => {
          seen.read = count();
        });
        expect(seen.read).toBeUndefined();
      });
      expect(await seen.read).toBe(1);

      // An API write that commits its events rings once, after its commit.
      const api = await t.ctx.as(ADMIN);
      const fieldId = await api.newField();
      const before = rings.length;
      await api.newValues(fieldId, [{ value: 'Once' }]);
      expect(rings.length).toBe(before + 1);
    });

    it.runIf(t.dialect === 'postgres')(
      "another node's dispatcher is woken by PostgreSQL's notification of the commit, not by this process's bell",
      async () => {
        const api = await t.ctx.as(DELIVERY_SCOPES);
        const receiver = await startReceiver();
        await subscribe(api, receiver.url, ['field_values.changed']);
        const fieldId = await api.newField();
        // Another node: its own pool, its dispatcher woken only by what its LISTEN hears.
        const other = openDatabase(loadConfig({ DATABASE_URL: t.ctx.database.url }).database, { poolSize: 2 });
        onTestFinished(() => other.close());
        const dispatcher = sleepyDispatcher(other);
        let listening!: () => void;
        const heard = new Promise<void>((resolve) => (listening = resolve));
        const listener = other.listen!(EVENTS_CHANNEL, () => {
          listening(); // its first call: LISTEN holds
          dispatcher.wake();
        });
        onTestFinished(() => listener.close());
        await heard;
        await dispatcher.whenIdle();
        await api.newValues(fieldId, [{ value: 'Travel' }]);
        await receiver.arrived(1);
        expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'field_values.changed' });
      },
    );
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
