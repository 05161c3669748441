import { Webhook } from 'standardwebhooks';
import type { Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import {
  attemptsOf,
  DELIVERY_SCOPES,
  EVENT_ID,
  EVENTS,
  startReceiver,
  subscribe,
  testClock,
  testDispatcher,
  webhookUrl,
} from './support/webhooks.js';

const testUrl = (id: string) => `${webhookUrl(id)}/test`;
const EVERY_TYPE = [
  'accounting_record.ready_for_export',
  'accounting_record.exported',
  'accounting_record.export_failed',
  'accounting_record.reopened',
  'accounting_record.receipt_attached',
  'field_values.changed',
  'integration.connected',
  'integration.disconnected',
  'ACCOUNTING_RECORD_READY_FOR_EXPORT',
];

/** The account's deliveries as stored, by endpoint. */
async function deliveryRows(ctx: TestContext, accountId: string) {
  return (ctx.db.direct as Kysely<any>)
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'event_id', 'status', 'attempts'])
    .where('account_id', '=', accountId)
    .execute();
}

describeEachDialect(
  'a test event sent to one webhook endpoint',
  (t) => {
    it('is delivered signed, to that endpoint alone, logged as webhook.test, and is not in the event feed', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      const other = await startReceiver();
      const hook = await subscribe(api, receiver.url);
      const everything = await subscribe(api, other.url, EVERY_TYPE);

      const res = await api.post(testUrl(hook.id), {});
      expect(res.status, res.text).toBe(200);
      const event = {
        id: expect.stringMatching(EVENT_ID),
        type: 'webhook.test',
        timestamp: expect.stringMatching(ISO_MICROS),
        account_id: api.accountId,
        data: { object: 'webhook_endpoint', id: hook.id },
      };
      expect(res.body).toEqual(event);
      expect(await deliveryRows(t.ctx, api.accountId)).toEqual([
        { endpoint_id: hook.id, event_id: res.body.id, status: 'PENDING', attempts: 0 },
      ]);

      expect(await testDispatcher(t.ctx.db).runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
      expect(receiver.received).toHaveLength(1);
      expect(other.received).toEqual([]);
      const got = receiver.received[0]!;
      expect(got.headers['webhook-id']).toBe(res.body.id);
      // Signed as every delivery is: the specification's library verifies it with the endpoint's secret.
      const verified = new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>);
      expect(verified).toEqual(res.body);
      expect(JSON.parse(got.body)).toEqual(res.body);

      const log = await attemptsOf(api, hook.id);
      expect(log).toEqual([
        {
          id: expect.any(String),
          event_id: res.body.id,
          event_type: 'webhook.test',
          attempted_at: expect.stringMatching(ISO_MICROS),
          status_code: 200,
          succeeded: true,
          latency_ms: expect.any(Number),
          response_excerpt: 'thanks',
          error: null,
        },
      ]);
      expect(await attemptsOf(api, hook.id, { event_type: 'webhook.test' })).toEqual(log);
      expect(await attemptsOf(api, hook.id, { event_type: 'accounting_record.exported' })).toEqual([]);
      expect(await attemptsOf(api, everything.id)).toEqual([]);
      expect(await deliveryRows(t.ctx, api.accountId)).toEqual([
        { endpoint_id: hook.id, event_id: res.body.id, status: 'DELIVERED', attempts: 1 },
      ]);

      // No change of the account: the feed has nothing, and no endpoint may subscribe to the type.
      const feed = await api.get(EVENTS);
      expect([feed.status, feed.body.items, feed.body.has_more]).toEqual([200, [], false]);
      const typed = await api.get(EVENTS, { type: 'webhook.test' });
      expect([typed.status, typed.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
      const subscribing = await api.put(webhookUrl(hook.id), { event_types: ['webhook.test'] });
      expect([subscribing.status, subscribing.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
      // A later business event is in the feed as before, and goes where it is subscribed.
      await api.readyRecord();
      const after = await api.get(EVENTS);
      expect(after.body.items.map((e: any) => e.type)).toEqual([
        'accounting_record.ready_for_export',
        'ACCOUNTING_RECORD_READY_FOR_EXPORT',
      ]);
      // Their deliveries go with them: the next test's dispatcher finds nothing of this one's due.
      for (const id of [hook.id, everything.id]) expect((await api.delete(webhookUrl(id))).status).toBe(200);
    });

    it('is retried like any delivery, redelivered to its endpoint on request, and replayed under its Idempotency-Key', async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const receiver = await startReceiver();
      receiver.plan(['fail']);
      const hook = await subscribe(api, receiver.url);
      const other = await subscribe(api, receiver.url);
      const key = { 'idempotency-key': 'test-event-1' };
      const first = await api.post(testUrl(hook.id), {}, key);
      const again = await api.post(testUrl(hook.id), {}, key);
      expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
      expect(again.body).toEqual(first.body);

      const dispatcher = testDispatcher(t.ctx.db, {}, testClock());
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 0 });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 0 });
      dispatcher.advance(5); // the first retry's wait: 5 s × (0.75 + 0.5 / 2)
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
      expect((await attemptsOf(api, hook.id)).map((a) => [a.event_id, a.event_type, a.status_code])).toEqual([
        [first.body.id, 'webhook.test', 200],
        [first.body.id, 'webhook.test', 500],
      ]);

      const redelivered = await api.post(`${webhookUrl(hook.id)}/redeliver`, { event_id: first.body.id });
      expect([redelivered.status, redelivered.body]).toEqual([200, { redelivered: 1 }]);
      const elsewhere = await api.post(`${webhookUrl(other.id)}/redeliver`, { event_id: first.body.id });
      expect([elsewhere.status, elsewhere.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(Array(3).fill(first.body.id));
      expect(await attemptsOf(api, other.id)).toEqual([]);
    });

    it("is refused for another account's endpoint, without webhooks.write, and for a disabled endpoint; nothing is queued", async () => {
      const api = await t.ctx.as(DELIVERY_SCOPES);
      const stranger = await t.ctx.as(DELIVERY_SCOPES);
      const reader = await t.ctx.as(['webhooks.read'], api.accountId);
      const hook = await subscribe(api, 'https://erp.example.com/svc-webhooks');

      const foreign = await stranger.post(testUrl(hook.id), {});
      expect([foreign.status, foreign.body]).toEqual([
        404,
        errorBody('NOT_FOUND', { details: { webhook_id: hook.id } }),
      ]);
      const missing = await api.post(testUrl('whk_00000000000000000000000000'), {});
      expect([missing.status, missing.body.error_code]).toEqual([404, 'NOT_FOUND']);

      const unscoped = await reader.post(testUrl(hook.id), {});
      expect([unscoped.status, unscoped.body.error_code, unscoped.body.details]).toEqual([
        403,
        'FORBIDDEN',
        { required_scopes: ['webhooks.write'] },
      ]);

      const extra = await api.post(testUrl(hook.id), { type: 'accounting_record.exported' });
      expect([extra.status, extra.body.error_code]).toEqual([400, 'INVALID_REQUEST']);

      expect((await api.put(webhookUrl(hook.id), { status: 'DISABLED' })).status).toBe(200);
      const disabled = await api.post(testUrl(hook.id), {});
      expect([disabled.status, disabled.body]).toEqual([
        409,
        errorBody('WEBHOOK_ENDPOINT_DISABLED', { details: { webhook_id: hook.id, status: 'DISABLED' } }),
      ]);
      expect(await deliveryRows(t.ctx, api.accountId)).toEqual([]);
      const stored = await (t.ctx.db.direct as Kysely<any>)
        .selectFrom('account_events')
        .select('event_id')
        .where('account_id', '=', api.accountId)
        .execute();
      expect(stored).toEqual([]);

      // Enabled again, it takes test events again.
      expect((await api.put(webhookUrl(hook.id), { status: 'ENABLED' })).status).toBe(200);
      expect((await api.post(testUrl(hook.id), {})).status).toBe(200);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
