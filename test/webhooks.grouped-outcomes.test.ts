import { expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { LEASE } from '../src/modules/webhooks/webhooks.dispatcher.js';
import { groupedWrites, type GroupedWrites } from '../src/speed/grouped-writes.js';
import { describeEachDialect } from './support/context.js';
import { attemptRows, commitsFailFor, storedDeliveries as stored } from './support/webhook-outcomes.js';
import { DELIVERY_SCOPES, startReceiver, subscribe, testClock, testDispatcher } from './support/webhooks.js';

/**
 * Attempts' outcomes written as savepoint groups (webhooks.attempt.ts: on SQLite with the piece `grouped-outcomes`
 * off, piece `grouped-writes`; passed here on both dialects): each
 * outcome with the claims its freed place makes is a savepoint of the group's transaction. When the group's commit
 * fails, each outcome is written again alone, and the claims of the run that was rolled back must not be attempted:
 * they were never made.
 */

const PLACES = 8; // ENDPOINT_CONCURRENCY: the step claims 8, and the outcomes' transactions claim the rest
const EVENTS = 12;

/** The first `count` outcomes asked for are handed to `grouped` in one turn (one group); later ones at once. */
function firstTogether(grouped: GroupedWrites, count: number): GroupedWrites {
  const gate: (() => void)[] = [];
  let asked = 0;
  return {
    write: (work) =>
      new Promise((resolve, reject) => {
        const go = () => void grouped.write(work).then(resolve, reject);
        if (++asked > count) return go();
        gate.push(go);
        if (gate.length === count) for (const release of gate.splice(0)) release();
      }),
    before: (step) => step(),
  };
}

describeEachDialect(
  'webhook outcomes written together',
  (t) => {
    it('writes each outcome of a group whose commit failed again alone, and attempts only the claims that were made', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      receiver.plan(Array<'hold'>(PLACES).fill('hold'));
      const hook = await subscribe(api, receiver.url);
      for (let i = 0; i < EVENTS; i++) await api.readyRecord();

      // The transactions that failed: the group's, then the failing outcome's alone (and no other).
      let failed = 0;
      const counted: Db = {
        ...t.ctx.db,
        write: (work) =>
          t.ctx.db.write(work).catch((error: unknown) => {
            failed++;
            throw error;
          }),
      };
      const clock = testClock({ frozen: true });
      const dispatcher = testDispatcher(
        t.ctx.db,
        { outcomeWrites: firstTogether(groupedWrites(counted, { maxBatch: 32, concurrency: 1 }), PLACES) },
        clock,
      );
      const { claimed } = await dispatcher.step();
      expect(claimed).toHaveLength(PLACES);
      await receiver.arrived(PLACES);
      const failing = claimed[3]!.event_id;
      const undo = await commitsFailFor(t.ctx, failing);
      try {
        receiver.release();
        // The failing outcome is not written, alone either; the seven others are, and their places claimed the rest.
        const outcomes = await Promise.allSettled(claimed.map((c) => c.settled));
        expect(outcomes.map((o) => o.status)).toEqual(
          claimed.map((c) => (c.event_id === failing ? 'rejected' : 'fulfilled')),
        );
        await dispatcher.settled();
      } finally {
        await undo();
      }
      expect(failed).toBe(2);

      // Each event was sent once: none of the claims the rolled-back group made was attempted.
      const sent = receiver.received.map((r) => r.headers['webhook-id'] as string);
      expect(sent).toHaveLength(EVENTS);
      expect(new Set(sent).size).toBe(EVENTS);
      const events = sent.slice().sort();
      expect(await stored(t.ctx, hook.id)).toEqual(
        events.map((event_id) =>
          event_id === failing
            ? { event_id, status: 'PENDING', attempts: 0, lease_token: expect.any(String) }
            : { event_id, status: 'DELIVERED', attempts: 1, lease_token: null },
        ),
      );
      expect((await attemptRows(t.ctx, hook.id)).map((a) => a.event_id)).toEqual(events.filter((e) => e !== failing));

      // The failing outcome's delivery comes due again when its lease runs out, and is delivered then.
      clock.advance(LEASE / 1_000_000 + 1);
      const again = await dispatcher.runOnce();
      expect([again.attempted, again.delivered]).toEqual([1, 1]);
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([...sent, failing]);
      expect((await stored(t.ctx, hook.id)).every((d) => d.status === 'DELIVERED' && d.attempts === 1)).toBe(true);
      expect((await attemptRows(t.ctx, hook.id)).map((a) => a.event_id)).toEqual(events);
      await dispatcher.stop();
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
