import { expect, it } from 'vitest';
import type { Ended } from '../src/modules/webhooks/webhooks.attempt.js';
import type { StatementGroups } from '../src/speed/statement-groups.js';
import { describeEachDialect } from './support/context.js';
import { attemptRows, endpointWithEvents, storedDeliveries as stored } from './support/webhook-outcomes.js';
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
        clock.advance(1); // the enabling made them due at its own time, after the test clock's frozen start
        const round = await dispatcher.runOnce();
        expect([round.attempted, round.delivered]).toEqual([1 + expected.sentAgain, 1 + expected.sentAgain]);
        const sent = receiver.received.map((r) => r.headers['webhook-id']);
        expect(sent.filter((id) => id === attempted!.event_id)).toHaveLength(1 + expected.sentAgain);
        expect(sent.filter((id) => id === waiting.event_id)).toHaveLength(1);
        expect((await stored(t.ctx, hook.id)).map((d) => d.status)).toEqual(['DELIVERED', 'DELIVERED']);
        await dispatcher.stop();
      });
    }
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
