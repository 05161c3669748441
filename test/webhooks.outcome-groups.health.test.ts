import { expect, it } from 'vitest';
import { DISABLE_AFTER } from '../src/modules/webhooks/webhooks.dispatcher.js';
import { describeEachDialect } from './support/context.js';
import {
  attemptRows,
  counted,
  endpointWithEvents,
  firstTogether,
  kysely,
  storedDeliveries as stored,
} from './support/webhook-outcomes.js';
import {
  DELIVERY_SCOPES,
  startReceiver,
  subscribe,
  testClock,
  testDispatcher,
  webhookUrl,
} from './support/webhooks.js';

/**
 * Endpoints' health when outcomes are written as groups (webhooks.attempt.ts, `judge`; piece `grouped-outcomes`):
 * each endpoint judged in key order, each outcome as the one before it left the endpoint, and only by the outcomes
 * whose claim was still this process's.
 */

const PLACES = 8; // ENDPOINT_CONCURRENCY: the step claims 8
const EVENTS = 12;

describeEachDialect(
  'webhook outcome groups and endpoint health',
  (t) => {
    it('judges the endpoint once a group: eight failures after five failing days disable it once and pause the rest', async () => {
      const { api, receiver, hook } = await endpointWithEvents(t.ctx, EVENTS, 'fail', EVENTS);
      const clock = testClock({ frozen: true });
      const since = clock.now() - DISABLE_AFTER;
      await kysely(t.ctx)
        .updateTable('webhook_endpoints')
        .set({ failing_since: since })
        .where('endpoint_id', '=', hook.id)
        .execute();

      const warned: string[] = [];
      const log = { info: () => {}, warn: (_: object, msg: string) => void warned.push(msg) };
      const db = counted(t.ctx.db);
      const dispatcher = testDispatcher(db.db, { outcomeGroups: firstTogether(PLACES), log }, clock);
      const before = db.writes;
      const { claimed } = await dispatcher.step();
      expect(claimed).toHaveLength(PLACES);
      const stepped = db.writes;
      expect(await Promise.all(claimed.map((c) => c.settled))).toEqual(Array(PLACES).fill(false));
      // The group disabled the endpoint before its claim: nothing more was claimed.
      expect((await Promise.all(claimed.map((c) => c.next))).flat()).toEqual([]);
      await dispatcher.settled();
      // The step's claim (after its beats), then one transaction for the eight outcomes.
      expect(stepped).toBeGreaterThan(before);
      expect([db.writes - stepped, db.failed]).toEqual([1, 0]);
      expect(warned).toEqual(['webhook endpoint disabled']);

      const endpoint = (await api.get(webhookUrl(hook.id))).body;
      expect(endpoint.status).toBe('DISABLED');
      expect(endpoint.disabled_reason).toMatch(
        /^Every delivery attempt failed for 5 days \(since \d{4}-.*Z\); the last one: HTTP 500\. Fix the endpoint/,
      );
      const row = await kysely(t.ctx)
        .selectFrom('webhook_endpoints')
        .select(['failing_since'])
        .where('endpoint_id', '=', hook.id)
        .executeTakeFirstOrThrow();
      expect(Number(row.failing_since)).toBe(since);
      const rows = await stored(t.ctx, hook.id);
      const tried = new Set(claimed.map((c) => c.event_id));
      // Every delivery waits for the endpoint (PAUSED): the eight attempted, their outcomes written first, and the
      // four never claimed.
      expect(rows).toHaveLength(EVENTS);
      expect(rows).toEqual(
        rows.map((r) => ({
          event_id: r.event_id,
          status: 'PAUSED',
          attempts: tried.has(r.event_id) ? 1 : 0,
          lease_token: null,
        })),
      );
      expect(await attemptRows(t.ctx, hook.id)).toEqual(
        [...tried].sort().map((event_id) => ({
          event_id,
          status_code: 500,
          succeeded: 0,
          response_excerpt: 'boom: the receiver failed',
          error: null,
        })),
      );
      expect(receiver.received).toHaveLength(PLACES);
      await dispatcher.stop();
    });

    it('judges each endpoint of a group by its own outcomes: one whose claims were all taken over keeps its health', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      const PER = PLACES / 2;
      receiver.plan(Array<'hold'>(PLACES).fill('hold'));
      const first = await subscribe(api, receiver.url);
      const second = await subscribe(api, receiver.url);
      for (let i = 0; i < PER; i++) await api.readyRecord();
      const clock = testClock({ frozen: true });
      const since = { [first.id]: clock.now() - 3_600_000_000, [second.id]: clock.now() - 7_200_000_000 };
      for (const [endpointId, at] of Object.entries(since)) {
        await kysely(t.ctx)
          .updateTable('webhook_endpoints')
          .set({ failing_since: at })
          .where('endpoint_id', '=', endpointId)
          .execute();
      }

      const dispatcher = testDispatcher(t.ctx.db, { outcomeGroups: firstTogether(PLACES) }, clock);
      const { claimed } = await dispatcher.step();
      expect(claimed.filter((c) => c.endpoint_id === first.id)).toHaveLength(PER);
      expect(claimed.filter((c) => c.endpoint_id === second.id)).toHaveLength(PER);
      await receiver.arrived(PLACES);
      // Another process took over every claim to the second endpoint: their attempts succeed, but the endpoint's
      // health is that process's to judge.
      await kysely(t.ctx)
        .updateTable('webhook_deliveries')
        .set({ lease_token: 'another-process' })
        .where('endpoint_id', '=', second.id)
        .execute();
      receiver.release();
      expect(await Promise.all(claimed.map((c) => c.settled))).toEqual(Array(PLACES).fill(true));
      await dispatcher.settled();

      const failingSince = async (endpointId: string) =>
        (
          await kysely(t.ctx)
            .selectFrom('webhook_endpoints')
            .select(['failing_since'])
            .where('endpoint_id', '=', endpointId)
            .executeTakeFirstOrThrow()
        ).failing_since;
      expect(await failingSince(first.id)).toBeNull();
      expect(Number(await failingSince(second.id))).toBe(since[second.id]);
      expect((await stored(t.ctx, first.id)).map((d) => [d.status, d.attempts, d.lease_token])).toEqual(
        Array(PER).fill(['DELIVERED', 1, null]),
      );
      expect((await stored(t.ctx, second.id)).map((d) => [d.status, d.attempts, d.lease_token])).toEqual(
        Array(PER).fill(['PENDING', 0, 'another-process']),
      );
      expect(await attemptRows(t.ctx, first.id)).toHaveLength(PER);
      expect(await attemptRows(t.ctx, second.id)).toHaveLength(PER);
      await dispatcher.stop();
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
