import { Webhook } from 'standardwebhooks';
import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { LEASE } from '../src/modules/webhooks/webhooks.dispatcher.js';
import { TAKEOVER_AFTER } from '../src/modules/webhooks/webhooks.liveness.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import {
  attemptsOf,
  DELIVERY_SCOPES,
  startReceiver,
  subscribe,
  testClock,
  testDispatcher,
} from './support/webhooks.js';

/** The endpoint's deliveries as stored, with who holds each claim and until when. */
async function deliveryRows(ctx: TestContext, endpointId: string) {
  const rows = await (ctx.db.direct as Kysely<any>)
    .selectFrom('webhook_deliveries')
    .select(['event_id', 'status', 'attempts', 'claimed_by', 'lease_token', 'next_attempt_at'])
    .where('endpoint_id', '=', endpointId)
    .execute();
  return rows.map((r) => ({ ...r, next_attempt_at: Number(r.next_attempt_at) }));
}

const dispatcherIds = async (ctx: TestContext) =>
  (await (ctx.db.direct as Kysely<any>).selectFrom('webhook_dispatchers').select('dispatcher_id').execute())
    .map((r) => r.dispatcher_id as string)
    .sort();

const SECONDS = TAKEOVER_AFTER / 1_000_000;

describeEachDialect(
  'webhook claims of a dispatcher that died',
  (t) => {
    it('are taken over once its heartbeat has stood still for the takeover window, long before the lease runs out', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      receiver.plan(['hang']); // the first attempt is under way when its process dies
      const hook = await subscribe(api, receiver.url);
      await api.readyRecord();
      const clock = testClock({ frozen: true });
      const dead = testDispatcher(t.ctx.db, {}, clock);
      const other = testDispatcher(t.ctx.db, {}, clock);
      const [claimed] = (await dead.step()).claimed;
      expect(claimed).toBeDefined();
      await receiver.arrived(1);
      // Dies mid-attempt: it never beats, claims or writes again (its socket stays open until the test ends).
      dead.stop().catch(() => {});
      const held = (await deliveryRows(t.ctx, hook.id))[0]!;
      expect(held).toMatchObject({ status: 'PENDING', attempts: 0, claimed_by: dead.id });
      expect(held.lease_token).not.toBeNull();
      const leaseEnd = held.next_attempt_at;

      // The other process sees it first, then watches its beats stand still: not yet at the window's end…
      expect((await other.step()).claimed).toEqual([]);
      clock.advance(SECONDS - 1);
      expect((await other.step()).claimed).toEqual([]);
      expect(await deliveryRows(t.ctx, hook.id)).toMatchObject([{ claimed_by: dead.id }]);
      // …and at its end the claim is void and the delivery is claimed again at once, the lease still far off.
      clock.advance(2);
      const step = await other.step();
      expect(step.claimed.map((c) => c.event_id)).toEqual([claimed!.event_id]);
      expect(await step.claimed[0]!.settled).toBe(true);
      expect(clock.now()).toBeLessThan(leaseEnd);
      expect(leaseEnd - clock.now()).toBeGreaterThan(LEASE - (SECONDS + 2) * 1_000_000);

      expect(receiver.received).toHaveLength(2);
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([claimed!.event_id, claimed!.event_id]);
      const second = receiver.received[1]!;
      expect(() =>
        new Webhook(hook.secret).verify(second.body, second.headers as Record<string, string>),
      ).not.toThrow();
      expect(await deliveryRows(t.ctx, hook.id)).toEqual([
        {
          event_id: claimed!.event_id,
          status: 'DELIVERED',
          attempts: 1,
          claimed_by: null,
          lease_token: null,
          next_attempt_at: expect.any(Number),
        },
      ]);
      // The dead process's row went with its claims; the living one's stays.
      const ids = await dispatcherIds(t.ctx);
      expect(ids).toContain(other.id);
      expect(ids).not.toContain(dead.id);
      const log = await attemptsOf(api, hook.id);
      expect(log.map((a) => [a.event_id, a.status_code, a.succeeded])).toEqual([[claimed!.event_id, 200, true]]);
    });

    it('are never taken over while their process lives: an attempt in flight however long is sent once', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      receiver.plan(['hold']);
      const hook = await subscribe(api, receiver.url);
      await api.readyRecord();
      const clock = testClock({ frozen: true });
      const busy = testDispatcher(t.ctx.db, {}, clock);
      const other = testDispatcher(t.ctx.db, {}, clock);
      const [claimed] = (await busy.step()).claimed;
      expect(claimed).toBeDefined();
      await receiver.arrived(1);
      expect((await other.step()).claimed).toEqual([]);
      // Twice the takeover window passes while the receiver holds the attempt; the busy process beats meanwhile.
      for (let i = 0; i < SECONDS * 2; i++) {
        clock.advance(1);
        expect((await busy.step()).claimed).toEqual([]);
        expect((await other.step()).claimed).toEqual([]);
      }
      expect(await deliveryRows(t.ctx, hook.id)).toMatchObject([
        { status: 'PENDING', attempts: 0, claimed_by: busy.id },
      ]);
      expect(receiver.received).toHaveLength(1);

      receiver.release();
      expect(await claimed!.settled).toBe(true);
      expect(await deliveryRows(t.ctx, hook.id)).toMatchObject([
        { status: 'DELIVERED', attempts: 1, claimed_by: null, lease_token: null },
      ]);
      expect((await other.step()).claimed).toEqual([]);
      expect(receiver.received).toHaveLength(1);
      expect(await attemptsOf(api, hook.id)).toMatchObject([{ event_id: claimed!.event_id, succeeded: true }]);
      // The busy one beat all along; the idle one only watched (it wrote nothing: no row of its own).
      const ids = await dispatcherIds(t.ctx);
      expect(ids).toContain(busy.id);
      expect(ids).not.toContain(other.id);
    });

    it('of a process that restarted are taken over by its new self, and a clean stop leaves nothing to take over', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      receiver.plan(['hang']);
      const hook = await subscribe(api, receiver.url);
      await api.readyRecord();
      const clock = testClock({ frozen: true });
      const before = testDispatcher(t.ctx.db, {}, clock);
      const [claimed] = (await before.step()).claimed;
      await receiver.arrived(1);
      before.stop().catch(() => {});
      // The same process started again is a dispatcher of its own: it judges its old self as any other.
      const after = testDispatcher(t.ctx.db, {}, clock);
      expect(after.id).not.toBe(before.id);
      expect((await after.step()).claimed).toEqual([]);
      clock.advance(SECONDS + 1);
      const step = await after.step();
      expect(step.claimed.map((c) => c.event_id)).toEqual([claimed!.event_id]);
      expect(await step.claimed[0]!.settled).toBe(true);
      expect(await deliveryRows(t.ctx, hook.id)).toMatchObject([{ status: 'DELIVERED', attempts: 1 }]);

      await after.stop();
      expect(await dispatcherIds(t.ctx)).not.toContain(after.id);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
