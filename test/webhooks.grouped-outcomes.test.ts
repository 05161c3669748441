import { expect, it } from 'vitest';
import type { Db } from '../src/db/database.js';
import { groupedWrites, type GroupedWrites } from '../src/speed/grouped-writes.js';
import { describeEachDialect } from './support/context.js';
import { aGroupFailsAtCommit, endpointWithEvents } from './support/webhook-outcomes.js';
import { testClock, testDispatcher } from './support/webhooks.js';

/**
 * Attempts' outcomes written as savepoint groups (webhooks.attempt.ts: on SQLite with the piece `grouped-outcomes`
 * off, piece `grouped-writes`; passed here on both dialects): each outcome with the claims its freed place makes is a savepoint of the group's transaction. When the group's commit
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
      const { receiver, hook } = await endpointWithEvents(t.ctx, EVENTS, 'hold', PLACES);

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
      await aGroupFailsAtCommit({
        ctx: t.ctx,
        receiver,
        endpointId: hook.id,
        dispatcher,
        claimed,
        advance: clock.advance,
        events: EVENTS,
      });
      // The group's transaction, then the failing outcome's alone; no other.
      expect(failed).toBe(2);
      await dispatcher.stop();
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
