import { expect, it } from 'vitest';
import { nowMicros } from '../src/lib/clock.js';
import type { Ended } from '../src/modules/webhooks/webhooks.attempt.js';
import { webhooksService } from '../src/modules/webhooks/webhooks.service.js';
import { TAKEOVER_AFTER } from '../src/modules/webhooks/webhooks.liveness.js';
import type { StatementGroups } from '../src/speed/statement-groups.js';
import { describeEachDialect } from './support/context.js';
import { attemptRows, endpointWithEvents, kysely, storedDeliveries as stored } from './support/webhook-outcomes.js';
import { testClock, testDispatcher, webhookUrl } from './support/webhooks.js';

/**
 * An endpoint disabled while attempts to it are under way (webhooks.repository.ts `setWaiting`, webhooks.attempt.ts
 * `judge`): the deliveries it has waiting pause, but those claimed are left to their attempts, whose outcomes are
 * written under their claims. One that succeeded stays delivered, and is not sent again once the endpoint is enabled;
 * one that failed waits for the endpoint (PAUSED) and is sent once it is enabled.
 */

/** Outcomes held until the test opens the gate: the attempts have ended, their outcomes not yet written. */
function gate(): { wrap: (groups: StatementGroups<Ended>) => StatementGroups<Ended>; open(): void } {
  const held: (() => void)[] = [];
  let opened = false;
  return {
    wrap: (groups) => ({
      write: (ended, then, freed) =>
        new Promise((resolve, reject) => {
          const go = () => void groups.write(ended, then, freed).then(resolve, reject);
          if (opened) go();
          else held.push(go);
        }),
    }),
    open() {
      opened = true;
      for (const go of held.splice(0)) go();
    },
  };
}

describeEachDialect(
  'a webhook endpoint disabled while its attempts are under way',
  (t) => {
    for (const [answer, expected] of [
      ['ok', { status: 'DELIVERED', sentAgain: 0 }],
      ['fail', { status: 'PAUSED', sentAgain: 1 }],
    ] as const) {
      it(`leaves an attempt that answers ${answer} to write its outcome: ${expected.status}, sent again once enabled: ${expected.sentAgain}`, async () => {
        // Two deliveries: one claimed (its attempt under way when the endpoint is disabled), one waiting.
        const { api, receiver, hook } = await endpointWithEvents(t.ctx, 2, answer, 1);
        const outcomes = gate();
        const clock = testClock({ frozen: true });
        const dispatcher = testDispatcher(t.ctx.db, { outcomeGroups: outcomes.wrap, endpointConcurrency: 1 }, clock);
        const { claimed } = await dispatcher.step();
        expect(claimed).toHaveLength(1);
        const [attempted] = claimed;
        await receiver.arrived(1);

        const disabled = await api.put(webhookUrl(hook.id), { status: 'DISABLED' });
        expect([disabled.status, disabled.body.status]).toEqual([200, 'DISABLED']);
        const waiting = (await stored(t.ctx, hook.id)).find((d) => d.event_id !== attempted!.event_id)!;
        expect(waiting).toMatchObject({ status: 'PAUSED', attempts: 0, lease_token: null });
        expect((await stored(t.ctx, hook.id)).find((d) => d.event_id === attempted!.event_id)).toMatchObject({
          status: 'PENDING',
          lease_token: expect.any(String),
        });

        outcomes.open();
        expect(await attempted!.settled).toBe(answer === 'ok');
        await dispatcher.settled();
        expect((await stored(t.ctx, hook.id)).find((d) => d.event_id === attempted!.event_id)).toEqual({
          event_id: attempted!.event_id,
          status: expected.status,
          attempts: 1,
          lease_token: null,
        });
        expect(await attemptRows(t.ctx, hook.id)).toHaveLength(1);

        // Enabled: what waits is sent; what was delivered is not sent again.
        receiver.plan(['ok', 'ok']);
        const enabled = await api.put(webhookUrl(hook.id), { status: 'ENABLED' });
        expect([enabled.status, enabled.body.status]).toEqual([200, 'ENABLED']);
        // The enabling made them due at the wall clock's time; the test's clock stands at its start: an hour on.
        clock.advance(3600);
        const round = await dispatcher.runOnce();
        expect([round.attempted, round.delivered]).toEqual([1 + expected.sentAgain, 1 + expected.sentAgain]);
        const sent = receiver.received.map((r) => r.headers['webhook-id']);
        expect(sent.filter((id) => id === attempted!.event_id)).toHaveLength(1 + expected.sentAgain);
        expect(sent.filter((id) => id === waiting.event_id)).toHaveLength(1);
        expect((await stored(t.ctx, hook.id)).map((d) => d.status)).toEqual(['DELIVERED', 'DELIVERED']);
        await dispatcher.stop();
      });
    }

    it('pauses the claim of a dispatcher that died mid-attempt when its endpoint was disabled meanwhile, and sends it once enabled', async () => {
      const { api, receiver, hook } = await endpointWithEvents(t.ctx, 1, 'hang', 1);
      const clock = testClock({ frozen: true });
      const dead = testDispatcher(t.ctx.db, {}, clock);
      const other = testDispatcher(t.ctx.db, {}, clock);
      const [claimed] = (await dead.step()).claimed;
      await receiver.arrived(1);
      // Dies mid-attempt: it never beats, claims or writes again.
      dead.stop().catch(() => {});
      expect((await api.put(webhookUrl(hook.id), { status: 'DISABLED' })).status).toBe(200);
      expect(await stored(t.ctx, hook.id)).toEqual([
        { event_id: claimed!.event_id, status: 'PENDING', attempts: 0, lease_token: expect.any(String) },
      ]);

      // Taken over: it waits for the endpoint with the others, not PENDING (nothing would pause it later).
      await other.step();
      clock.advance(TAKEOVER_AFTER / 1_000_000 + 1);
      expect((await other.step()).claimed).toEqual([]);
      expect(await stored(t.ctx, hook.id)).toEqual([
        { event_id: claimed!.event_id, status: 'PAUSED', attempts: 0, lease_token: null },
      ]);

      expect((await api.put(webhookUrl(hook.id), { status: 'ENABLED' })).status).toBe(200);
      clock.advance(3600); // past the enabling's wall-clock time (the test's clock stands at its start)
      const round = await other.runOnce();
      expect([round.attempted, round.delivered]).toEqual([1, 1]);
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([claimed!.event_id, claimed!.event_id]);
      await other.stop();
    });

    it('sends at once, when enabled, a retry left PENDING while the endpoint was disabled, and sweeps one kept past the retention', async () => {
      const { api, receiver, hook } = await endpointWithEvents(t.ctx, 2, 'ok', 0);
      const clock = testClock({ frozen: true });
      const dispatcher = testDispatcher(t.ctx.db, {}, clock);
      await dispatcher.step(); // fans the two events out (and attempts them)
      await dispatcher.settled();
      expect((await api.put(webhookUrl(hook.id), { status: 'DISABLED' })).status).toBe(200);
      // What a retry whose outcome raced the disabling leaves (PostgreSQL): PENDING, no claim, due hours away.
      const [first, second] = await stored(t.ctx, hook.id);
      const later = nowMicros() + 8 * 3_600_000_000;
      await kysely(t.ctx)
        .updateTable('webhook_deliveries')
        .set({ status: 'PENDING', attempts: 3, next_attempt_at: later, updated_at: nowMicros() })
        .where('endpoint_id', '=', hook.id)
        .execute();

      // Past the retention, the sweep deletes a waiting delivery of a disabled endpoint, PENDING or PAUSED.
      const retention = 30 * 24 * 3_600_000_000;
      await kysely(t.ctx)
        .updateTable('webhook_deliveries')
        .set({ updated_at: nowMicros() - retention - 1_000_000 })
        .where('event_id', '=', second!.event_id)
        .execute();
      expect(await webhooksService.deleteExpired(t.ctx.db, nowMicros())).toBe(1);
      expect((await stored(t.ctx, hook.id)).map((d) => d.event_id)).toEqual([first!.event_id]);

      // Enabled: the one left is due at once, not hours later.
      receiver.plan(['ok']);
      expect((await api.put(webhookUrl(hook.id), { status: 'ENABLED' })).status).toBe(200);
      clock.advance(3600); // past the enabling's wall-clock time, hours before the retry's
      const round = await dispatcher.runOnce();
      expect([round.attempted, round.delivered]).toEqual([1, 1]);
      expect(await stored(t.ctx, hook.id)).toEqual([
        { event_id: first!.event_id, status: 'DELIVERED', attempts: 4, lease_token: null },
      ]);
      await dispatcher.stop();
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
