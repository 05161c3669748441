import { expect, it, onTestFinished, vi } from 'vitest';
import { deliveriesRepository } from '../src/modules/webhooks/deliveries.repository.js';
import { describeEachDialect } from './support/context.js';
import {
  aGroupFailsAtCommit,
  attemptRows,
  counted,
  endpointWithEvents,
  firstTogether,
  kysely,
  storedDeliveries as stored,
} from './support/webhook-outcomes.js';
import { testClock, testDispatcher } from './support/webhooks.js';

/**
 * Outcomes written as groups (src/speed/statement-groups.ts, piece `grouped-outcomes`; the gate below decides which
 * outcomes share one): the outcomes of attempts that end together are written in one transaction (PostgreSQL: by one
 * statement), their places freed, and one claim hands those places out. When the group's transaction fails, each
 * outcome is written again alone.
 */

const PLACES = 8; // ENDPOINT_CONCURRENCY: the step claims 8, and the group's claim takes the rest
const EVENTS = 12;

describeEachDialect(
  'webhook outcomes written as one statement',
  (t) => {
    it('writes the outcomes of attempts that end together in one transaction, and claims the places they free once', async () => {
      const { receiver, hook } = await endpointWithEvents(t.ctx, EVENTS, 'hold', PLACES);

      const db = counted(t.ctx.db);
      const dispatcher = testDispatcher(db.db, { outcomeGroups: firstTogether(PLACES) }, testClock({ frozen: true }));
      const { claimed } = await dispatcher.step();
      expect(claimed).toHaveLength(PLACES);
      await receiver.arrived(PLACES);
      const before = db.writes; // the step's claim, and the dispatcher's beats
      const dueReads = vi.spyOn(deliveriesRepository, 'dueEndpoints');
      onTestFinished(() => dueReads.mockRestore());
      receiver.release();
      expect(await Promise.all(claimed.map((c) => c.settled))).toEqual(Array(PLACES).fill(true));
      // One transaction wrote the eight outcomes, and one claim in it took the four deliveries left (the first
      // outcome's; the seven others found no place freed since, and read nothing).
      expect(db.writes - before).toBe(1);
      // (Counted as the group's commit answers: the four claimed begin then, and none of their outcomes can be
      // written before its request has gone to the receiver and come back.)
      expect(dueReads).toHaveBeenCalledTimes(1);
      const next = await Promise.all(claimed.map((c) => c.next));
      expect(next.map((n) => n.length).sort((a, b) => a - b)).toEqual([0, 0, 0, 0, 0, 0, 0, EVENTS - PLACES]);
      await dispatcher.settled();
      expect(db.failed).toBe(0);

      const sent = receiver.received.map((r) => r.headers['webhook-id'] as string);
      expect(sent).toHaveLength(EVENTS);
      expect(new Set(sent).size).toBe(EVENTS);
      const events = sent.slice().sort();
      expect(await stored(t.ctx, hook.id)).toEqual(
        events.map((event_id) => ({ event_id, status: 'DELIVERED', attempts: 1, lease_token: null })),
      );
      expect(await attemptRows(t.ctx, hook.id)).toEqual(
        events.map((event_id) => ({
          event_id,
          status_code: 200,
          succeeded: 1,
          response_excerpt: 'thanks',
          error: null,
        })),
      );
      await dispatcher.stop();
    });

    it('writes each outcome of a group whose commit failed again alone, and attempts only the claims that were made', async () => {
      const { api, receiver, hook } = await endpointWithEvents(t.ctx, EVENTS, 'hold', PLACES);

      const db = counted(t.ctx.db);
      const clock = testClock({ frozen: true });
      const warned: string[] = [];
      const log = { info: () => {}, warn: (_: object, msg: string) => void warned.push(msg) };
      const dispatcher = testDispatcher(db.db, { outcomeGroups: firstTogether(PLACES), log }, clock);
      const { claimed } = await dispatcher.step();
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
      expect(db.failed).toBe(2);
      expect(warned).toEqual([
        'webhook outcomes not written as a group; writing each alone',
        'webhook attempt not settled; the delivery comes due again when its lease runs out',
      ]);

      // Every place came back: the next step claims a full endpoint's worth again.
      receiver.plan(Array<'hold'>(PLACES).fill('hold'));
      for (let i = 0; i < PLACES; i++) await api.readyRecord();
      const later = await dispatcher.step();
      expect(later.claimed).toHaveLength(PLACES);
      await receiver.arrived(EVENTS + 1 + PLACES);
      receiver.release();
      expect(await Promise.all(later.claimed.map((c) => c.settled))).toEqual(Array(PLACES).fill(true));
      await dispatcher.stop();
    });

    it('logs the attempt whose claim another process took over, leaves its delivery to that process, and settles the rest', async () => {
      const { receiver, hook } = await endpointWithEvents(t.ctx, PLACES, 'hold', PLACES);

      const dispatcher = testDispatcher(
        t.ctx.db,
        { outcomeGroups: firstTogether(PLACES) },
        testClock({ frozen: true }),
      );
      const { claimed } = await dispatcher.step();
      await receiver.arrived(PLACES);
      // Another process's claim, as if the lease had run out and it took the delivery over.
      const taken = claimed[5]!;
      await kysely(t.ctx)
        .updateTable('webhook_deliveries')
        .set({ lease_token: 'another-process' })
        .where('delivery_id', '=', taken.delivery_id)
        .execute();
      receiver.release();
      expect(await Promise.all(claimed.map((c) => c.settled))).toEqual(Array(PLACES).fill(true));
      await dispatcher.settled();

      expect(await stored(t.ctx, hook.id)).toEqual(
        claimed
          .map((c) => c.event_id)
          .sort()
          .map((event_id) =>
            event_id === taken.event_id
              ? { event_id, status: 'PENDING', attempts: 0, lease_token: 'another-process' }
              : { event_id, status: 'DELIVERED', attempts: 1, lease_token: null },
          ),
      );
      expect((await attemptRows(t.ctx, hook.id)).map((a) => a.event_id)).toEqual(claimed.map((c) => c.event_id).sort());
      await dispatcher.stop();
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
