import { Webhook } from 'standardwebhooks';
import { type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { verifyWebhook } from '../client/src/webhooks.js';
import { DISABLE_AFTER, RETRY_WINDOW } from '../src/modules/webhooks/webhooks.dispatcher.js';
import { ADMIN, reviewUrl } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { ISO_MICROS } from './support/expect.js';
import { startReceiver, testDispatcher, WEBHOOKS, webhookUrl } from './support/webhooks.js';

const SCOPES = [...ADMIN, 'webhooks.write', 'events.read'] as const;
const READY = ['accounting_record.ready_for_export'];

async function subscribe(api: Api, url: string, event_types = READY) {
  const res = await api.create(WEBHOOKS, { url, event_types });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; secret: string };
}

const attemptsOf = async (api: Api, id: string, query: Record<string, string> = {}) => {
  const res = await api.get(`${webhookUrl(id)}/attempts`, query);
  expect(res.status, res.text).toBe(200);
  return res.body.items as any[];
};

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
      const api = await t.ctx.as(SCOPES);
      const receiver = await startReceiver();
      const hook = await subscribe(api, receiver.url, [...READY, 'ACCOUNTING_RECORD_READY_FOR_EXPORT']);
      const record = await api.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db);
      expect(await dispatcher.runOnce()).toEqual({ scanned: 2, fanned: 2, attempted: 2, delivered: 2 });

      const feed = (await api.get('/v1/events')).body.items;
      expect(receiver.received).toHaveLength(2);
      const [own, compat] = receiver.received;
      expect(new Webhook(hook.secret).verify(own!.body, own!.headers as Record<string, string>)).toEqual(feed[0]);
      expect(own!.body).toBe(JSON.stringify(feed[0]));
      // The SDK's verifier (WebCrypto) accepts the delivery too.
      expect(await verifyWebhook(hook.secret, own!.body, own!.headers)).toEqual(feed[0]);
      expect(own!.headers['webhook-id']).toBe(feed[0].id);
      expect(own!.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(own!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
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
      const api = await t.ctx.as(SCOPES);
      const receiver = await startReceiver();
      receiver.plan(['fail', 'hang', 'drop', 'redirect', 'accepted']);
      const hook = await subscribe(api, receiver.url);
      await api.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db, { timeoutMs: 500 });
      const delivered: number[] = [];
      for (let i = 0; i < 5; i++) {
        delivered.push((await dispatcher.runOnce()).delivered);
        // Not due again before its backoff: 5 s × 3^(n−1) × (0.75 + 0.5/2) with the test's random 0.5.
        expect((await dispatcher.runOnce()).attempted).toBe(0);
        dispatcher.advance(5 * 3 ** i);
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
      const api = await t.ctx.as(SCOPES);
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
      const api = await t.ctx.as(SCOPES);
      const stranger = await t.ctx.as(SCOPES);
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
      const api = await t.ctx.as(SCOPES);
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
      const api = await t.ctx.as(SCOPES);
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

describeEachDialect('webhook delivery: targets refused at send time (default configuration)', (t) => {
  it('refuses a name that resolves to a loopback or private address at every attempt, sends nothing, and tells no address', async () => {
    const api = await t.ctx.as(SCOPES);
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    const local = await subscribe(api, `https://localhost:${port}/hooks`);
    const internal = await subscribe(api, 'https://erp.internal.example/hooks');
    await api.readyRecord();
    const logged: Record<string, unknown>[] = [];
    const dispatcher = testDispatcher(t.ctx.db, {
      allowPrivateTargets: false,
      log: {
        info: (obj, msg) => logged.push({ ...obj, msg }),
        warn: (obj, msg) => logged.push({ ...obj, msg }),
      },
      resolve: async (host) =>
        host === 'erp.internal.example'
          ? [
              { address: '8.8.8.8', family: 4 }, // public (203.0.113.0/24 is documentation space: reserved)
              { address: '10.0.0.7', family: 4 },
            ]
          : [{ address: '127.0.0.1', family: 4 }],
    });
    const notPublic = (host: string) =>
      `refused: ${host} is not a public address (webhooks are sent to public addresses only)`;
    expect(await dispatcher.runOnce()).toMatchObject({ attempted: 2, delivered: 0 });
    expect(receiver.received).toEqual([]);
    expect((await attemptsOf(api, local.id)).map((a) => [a.status_code, a.error])).toEqual([
      [null, notPublic('localhost')],
    ]);
    expect((await attemptsOf(api, internal.id)).map((a) => a.error)).toEqual([notPublic('erp.internal.example')]);
    // Refused again at the retry: the check is made at every send.
    dispatcher.advance(60);
    await dispatcher.runOnce();
    expect(await attemptsOf(api, local.id)).toHaveLength(2);
    expect(receiver.received).toEqual([]);

    // Failing five days: disabled, and the reason quotes the last attempt's words, which name no address either.
    dispatcher.advance(DISABLE_AFTER / 1e6);
    await dispatcher.runOnce();
    const disabled = (await api.get(webhookUrl(internal.id))).body;
    expect(disabled.status).toBe('DISABLED');
    expect(disabled.disabled_reason).toContain(`the last one: ${notPublic('erp.internal.example')}.`);
    const stored = await (t.ctx.db.direct as Kysely<any>)
      .selectFrom('webhook_attempts')
      .select('error')
      .where('account_id', '=', api.accountId)
      .execute();
    expect(stored.map((r) => r.error)).toEqual(
      Array(6).fill(expect.stringMatching(/^refused: [a-z.]+ is not a public/)),
    );

    // The operator's log says that a target was refused, with the attempt's words.
    const refusals = logged.filter((l) => l.msg === 'webhook target refused: not a public address');
    expect(refusals).toHaveLength(6);
    expect(refusals[0]).toEqual({
      account_id: api.accountId,
      webhook_id: expect.any(String),
      event_id: expect.any(String),
      error: expect.stringMatching(/^refused: [a-z.]+ is not a public address/),
      msg: 'webhook target refused: not a public address',
    });
    // Nothing answered, stored or logged tells what the names resolve to, nor the class of the address.
    const told = JSON.stringify([
      await attemptsOf(api, local.id),
      await attemptsOf(api, internal.id),
      (await api.get(WEBHOOKS)).body,
      stored,
      logged,
    ]);
    for (const secret of ['127.0.0.1', '10.0.0.7', '8.8.8.8', 'loopback', 'private', 'resolves to']) {
      expect(told).not.toContain(secret);
    }
  });
});
