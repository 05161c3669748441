import { Webhook } from 'standardwebhooks';
import { type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { verifyWebhook } from '../client/src/webhooks.js';
import { DISABLE_AFTER, RETRY_WINDOW } from '../src/modules/webhooks/webhooks.dispatcher.js';
import { reviewUrl } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { ISO_MICROS } from './support/expect.js';
import {
  attemptsOf,
  DELIVERY_SCOPES,
  startReceiver,
  subscribe,
  testClock,
  testDispatcher,
  webhookUrl,
} from './support/webhooks.js';

const READY = ['accounting_record.ready_for_export'];

async function deliveryRows(ctx: TestContext, endpointId: string) {
  return (ctx.db.direct as Kysely<any>)
    .selectFrom('webhook_deliveries')
    .select(['event_id', 'status', 'attempts'])
    .where('endpoint_id', '=', endpointId)
    .execute();
}

describeEachDialect(
  'webhook delivery to a local receiver',
  (t) => {
    it('delivers the event signed per Standard Webhooks: the library verifies it, the body is the feed item', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      const hook = await subscribe(api, receiver.url, [...READY, 'ACCOUNTING_RECORD_READY_FOR_EXPORT']);
      const record = await api.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db);
      const sentAfter = Math.floor(Date.now() / 1000);
      expect(await dispatcher.runOnce()).toEqual({ scanned: 2, fanned: 2, attempted: 2, delivered: 2 });
      const sentBefore = Math.ceil(Date.now() / 1000);

      const feed = (await api.get('/v1/events')).body.items;
      expect(receiver.received).toHaveLength(2);
      const [own, compat] = receiver.received;
      expect(new Webhook(hook.secret).verify(own!.body, own!.headers as Record<string, string>)).toEqual(feed[0]);
      expect(own!.body).toBe(JSON.stringify(feed[0]));
      // The SDK's verifier (WebCrypto) accepts the delivery too.
      expect(await verifyWebhook(hook.secret, own!.body, own!.headers)).toEqual(feed[0]);
      expect(own!.headers['webhook-id']).toBe(feed[0].id);
      expect(own!.headers['content-type']).toBe('application/json');
      // The wall clock's seconds at the sending.
      expect(Number(own!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(sentAfter);
      expect(Number(own!.headers['webhook-timestamp'])).toBeLessThanOrEqual(sentBefore);
      expect(JSON.parse(compat!.body)).toEqual({
        event_type: 'ACCOUNTING_RECORD_READY_FOR_EXPORT',
        accounting_record_ids: [record.id],
        company_id: api.accountId,
      });
      expect(compat!.headers['webhook-id']).toBe(feed[1].id);
      expect(() =>
        new Webhook(hook.secret).verify(compat!.body, compat!.headers as Record<string, string>),
      ).not.toThrow();
      const tampered: Record<string, string> = {
        ...(own!.headers as Record<string, string>),
        'webhook-id': feed[1].id,
      };
      expect(() => new Webhook(hook.secret).verify(own!.body, tampered)).toThrow(/No matching signature/);

      expect(await attemptsOf(api, hook.id, { event_id: feed[0].id })).toEqual([
        {
          id: expect.any(String),
          event_id: feed[0].id,
          event_type: feed[0].type,
          attempted_at: expect.stringMatching(ISO_MICROS),
          status_code: 200,
          succeeded: true,
          latency_ms: expect.any(Number),
          response_excerpt: 'thanks',
          error: null,
        },
      ]);
      // Nothing more to do: delivered events are not sent again.
      expect(await dispatcher.runOnce()).toEqual({ scanned: 0, fanned: 0, attempted: 0, delivered: 0 });
      expect(receiver.received).toHaveLength(2);
    });

    it('retries after a 500, a timeout, a dropped connection and a redirect, with the same webhook-id, until a 2xx', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      receiver.plan(['fail', 'hang', 'drop', 'redirect', 'accepted']);
      const hook = await subscribe(api, receiver.url);
      await api.readyRecord();
      // Two dispatchers on one clock: the hang alone meets a short timeout; every other answer, however slow a
      // loaded machine makes it, meets the ceiling.
      const clock = testClock();
      const patient = testDispatcher(t.ctx.db, {}, clock);
      const impatient = testDispatcher(t.ctx.db, { timeoutMs: 500 }, clock);
      const delivered: number[] = [];
      for (let i = 0; i < 5; i++) {
        const dispatcher = i === 1 ? impatient : patient;
        delivered.push((await dispatcher.runOnce()).delivered);
        // Not due again before its backoff: 5 s × 3^(n−1) × (0.75 + 0.5/2) with the test's random 0.5.
        expect((await dispatcher.runOnce()).attempted).toBe(0);
        clock.advance(5 * 3 ** i);
      }
      expect(delivered).toEqual([0, 0, 0, 0, 1]);
      expect(receiver.received.map((r) => r.behaviour)).toEqual(['fail', 'hang', 'drop', 'redirect', 'accepted']);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      for (const r of receiver.received) {
        expect(() => new Webhook(hook.secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
      }
      const log = await attemptsOf(api, hook.id);
      expect(log.map((a) => [a.status_code, a.succeeded, a.response_excerpt])).toEqual([
        [204, true, null],
        [302, false, null],
        [null, false, null],
        [null, false, null],
        [500, false, 'boom: the receiver failed'],
      ]);
      expect(log[1].error).toBe(`redirects are not followed (Location: ${receiver.url}/elsewhere)`);
      expect(log[2].error).toMatch(/socket hang up|ECONNRESET/);
      expect(log[3].error).toBe('no answer within 0.5 s');
      expect(new Set(log.map((a) => a.event_id)).size).toBe(1);
      expect(receiver.received.filter((r) => r.headers['webhook-id'] !== log[0].event_id)).toEqual([]);
      expect(await deliveryRows(t.ctx, hook.id)).toEqual([
        { event_id: log[0].event_id, status: 'DELIVERED', attempts: 5 },
      ]);
    });

    it('gives a delivery up after three days of failures, and disables an endpoint failing for five, saying why', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      receiver.plan(Array<'fail'>(100).fill('fail'));
      const hook = await subscribe(api, receiver.url);
      await api.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db);
      const day = 86_400;
      let attempts = 0;
      // Every due retry, hour by hour, for three days and a bit.
      for (let hour = 0; hour <= RETRY_WINDOW / 3.6e9 + 8; hour++) {
        attempts += (await dispatcher.runOnce()).attempted;
        // The first hour minute by minute (the early retries come seconds and minutes apart), then hourly.
        for (let s = 0; s < 3600; s += hour === 0 ? 60 : 3600) {
          dispatcher.advance(hour === 0 ? 60 : 3600);
          attempts += (await dispatcher.runOnce()).attempted;
        }
      }
      const [delivery] = await deliveryRows(t.ctx, hook.id);
      expect(delivery!.status).toBe('FAILED');
      expect(attempts).toBe(delivery!.attempts);
      expect(attempts).toBeGreaterThanOrEqual(12);
      expect((await api.get(webhookUrl(hook.id))).body.status).toBe('ENABLED');

      // Still failing on day five with a new event: disabled, with the reason; new events wait (PAUSED).
      dispatcher.advance(2 * day);
      const record = await api.newRecord({ review_status: 'REVIEW' });
      await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
      await dispatcher.runOnce();
      const disabled = (await api.get(webhookUrl(hook.id))).body;
      expect(disabled.status).toBe('DISABLED');
      expect(disabled.disabled_reason).toMatch(
        /^Every delivery attempt failed for 5 days \(since \d{4}-.*Z\); the last one: HTTP 500\. Fix the endpoint, then enable it again/,
      );
      expect(DISABLE_AFTER).toBe(5 * day * 1e6);
      const sent = receiver.received.length;
      await api.readyRecord();
      dispatcher.advance(day);
      expect((await dispatcher.runOnce()).attempted).toBe(0);
      expect(receiver.received).toHaveLength(sent);

      // Enabled again (fixed): the paused delivery goes out; the event of the disabled days is not sent by itself
      // (the endpoint takes the events from now on), and redeliver since brings every event again, same ids.
      const fixed = await startReceiver();
      expect((await api.put(webhookUrl(hook.id), { url: fixed.url, status: 'ENABLED' })).status).toBe(200);
      await dispatcher.runOnce();
      const events = (await api.get('/v1/events')).body.items
        .filter((e: any) => e.type === READY[0])
        .map((e: any) => e.id);
      expect(events).toHaveLength(3);
      expect(fixed.received.map((r) => r.headers['webhook-id'])).toEqual([events[1]]);
      const missed = await api.post(`${webhookUrl(hook.id)}/redeliver`, { since: '2000-01-01T00:00:00Z' });
      expect(missed.body).toEqual({ redelivered: 3 });
      expect((await dispatcher.runOnce()).delivered).toBe(3);
      expect(fixed.received.slice(1).map((r) => r.headers['webhook-id'])).toEqual(events);
      expect((await api.get(webhookUrl(hook.id))).body).toMatchObject({ status: 'ENABLED', disabled_reason: null });
    });

    it('redelivers one event with the same id, and refuses an event of another type or another account', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const stranger = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      const hook = await subscribe(api, receiver.url);
      await api.readyRecord();
      await stranger.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db);
      await dispatcher.runOnce();
      const [event, compat] = (await api.get('/v1/events')).body.items;
      const again = await api.post(`${webhookUrl(hook.id)}/redeliver`, { event_id: event.id });
      expect([again.status, again.body]).toEqual([200, { redelivered: 1 }]);
      await dispatcher.runOnce();
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id]);
      expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
      expect(await attemptsOf(api, hook.id, { event_id: event.id })).toHaveLength(2);

      const otherType = await api.post(`${webhookUrl(hook.id)}/redeliver`, { event_id: compat.id });
      expect([otherType.status, otherType.body.details.errors]).toEqual([
        400,
        [
          {
            path: '/event_id',
            message: 'is a ACCOUNTING_RECORD_READY_FOR_EXPORT event, which the endpoint does not take',
          },
        ],
      ]);
      const theirs = (await stranger.get('/v1/events')).body.items[0].id;
      const foreign = await api.post(`${webhookUrl(hook.id)}/redeliver`, { event_id: theirs });
      expect([foreign.status, foreign.body.details]).toEqual([404, { event_id: theirs }]);
      expect((await api.post(`${webhookUrl(hook.id)}/redeliver`, { event_id: event.id, since: 'x' })).status).toBe(400);
    });

    it('signs with both secrets during a rotation: receivers on the old or the new one verify', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      const hook = await subscribe(api, receiver.url);
      const rotated = await api.post(`${webhookUrl(hook.id)}/secret/rotate`, {});
      const current = rotated.body.secrets[0].secret;
      await api.readyRecord();
      await testDispatcher(t.ctx.db).runOnce();
      const [got] = receiver.received;
      expect(got!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
      for (const secret of [current, hook.secret]) {
        expect(() => new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).not.toThrow();
      }
    });

    it('sends an event once however many dispatchers run at the same time', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      const hook = await subscribe(api, receiver.url);
      await api.newRecords(Array.from({ length: 30 }, () => ({ review_status: 'READY_FOR_EXPORT' })));
      const dispatchers = [testDispatcher(t.ctx.db), testDispatcher(t.ctx.db), testDispatcher(t.ctx.db)];
      for (let round = 0; round < 5; round++) await Promise.all(dispatchers.map((d) => d.runOnce()));
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(30);
      expect(new Set(ids).size).toBe(30);
      expect((await deliveryRows(t.ctx, hook.id)).every((d) => d.status === 'DELIVERED' && d.attempts === 1)).toBe(
        true,
      );
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
