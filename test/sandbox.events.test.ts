import { expect, it } from 'vitest';
import { verifyWebhook } from '../client/src/webhooks.js';
import { Api } from './support/api.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { newVendor } from './support/integrations.js';
import { EVENT_ID, startReceiver, testDispatcher, WEBHOOKS } from './support/webhooks.js';

const ADMIN_TOKEN = 'sandbox-operator-token-0123456789';
const ENV = { SANDBOX: 'true', SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
const eventsUrl = (accountId: string) => `/sandbox/v1/accounts/${accountId}/events`;

const operator = (ctx: TestContext) => new Api(ctx.app, ADMIN_TOKEN, '', '');

/** A sandbox account and an Api with its client's token. */
async function sandboxAccount(ctx: TestContext) {
  const made = await operator(ctx).post('/sandbox/v1/accounts', {});
  expect(made.status, made.text).toBe(200);
  const token = await ctx.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    payload: {
      grant_type: 'client_credentials',
      client_id: made.body.client_id,
      client_secret: made.body.client_secret,
    },
  });
  return new Api(ctx.app, token.json().access_token, made.body.account_id, made.body.client_id);
}

describeEachDialect(
  'sandbox: events on demand',
  (t) => {
    it('announces an event of a record, a field or an integration: the feed lists it, with the record’s current version', async () => {
      const api = await sandboxAccount(t.ctx);
      const record = await api.readyRecord();
      const fieldId = await api.newField({ name: 'GL' });
      const integration = await api.post('/v3/accounting/integration', {
        vendor: await newVendor(t.ctx.db),
        vendor_account_id: 'erp-1',
      });
      const before = (await api.get('/v1/events', { limit: '100' })).body.items.length;

      const fire = (body: object) => operator(t.ctx).post(eventsUrl(api.accountId), body);
      const failed = await fire({
        type: 'accounting_record.export_failed',
        object_id: record.id,
        error_message: 'Bad GL',
      });
      expect(failed.status, failed.text).toBe(200);
      expect(failed.body).toEqual({
        events: [{ id: expect.stringMatching(EVENT_ID), type: 'accounting_record.export_failed' }],
      });
      const ready = await fire({ type: 'accounting_record.ready_for_export', object_id: record.id });
      expect(ready.body.events.map((e: any) => e.type)).toEqual([
        'accounting_record.ready_for_export',
        'ACCOUNTING_RECORD_READY_FOR_EXPORT',
      ]);
      expect(
        (await fire({ type: 'field_values.changed', object_id: fieldId, operation: 'CREATED', svc_ids: ['v1'] }))
          .status,
      ).toBe(200);
      expect(
        (await fire({ type: 'integration.disconnected', object_id: integration.body.integration_id })).status,
      ).toBe(200);

      const feed = (await api.get('/v1/events', { limit: '100' })).body.items.slice(before);
      expect(feed.map((e: any) => [e.id, e.type, e.data])).toEqual([
        [
          failed.body.events[0].id,
          'accounting_record.export_failed',
          { object: 'accounting_record', id: record.id, version: 1, error_message: 'Bad GL' },
        ],
        [
          ready.body.events[0].id,
          'accounting_record.ready_for_export',
          { object: 'accounting_record', id: record.id, version: 1 },
        ],
        [
          ready.body.events[1].id,
          'ACCOUNTING_RECORD_READY_FOR_EXPORT',
          {
            event_type: 'ACCOUNTING_RECORD_READY_FOR_EXPORT',
            accounting_record_ids: [record.id],
            company_id: api.accountId,
          },
        ],
        [
          expect.stringMatching(EVENT_ID),
          'field_values.changed',
          { object: 'field', id: fieldId, operation: 'CREATED', count: 1, svc_ids: ['v1'] },
        ],
        [
          expect.stringMatching(EVENT_ID),
          'integration.disconnected',
          { object: 'integration', id: integration.body.integration_id },
        ],
      ]);
      // Nothing else changed: the record is as it was.
      expect((await api.get(`/v3/accounting/records/${record.id}`)).body).toEqual(record);
    });

    it("is delivered to the account's webhook endpoints, signed", async () => {
      const api = await sandboxAccount(t.ctx);
      const receiver = await startReceiver();
      const hook = await api.post(WEBHOOKS, { url: receiver.url, event_types: ['accounting_record.reopened'] });
      expect(hook.status, hook.text).toBe(200);
      const record = await api.readyRecord();
      const fired = await operator(t.ctx).post(eventsUrl(api.accountId), {
        type: 'accounting_record.reopened',
        object_id: record.id,
      });
      expect(fired.status).toBe(200);
      // The test's own dispatcher round (the server's runs in server.ts): the new event is delivered at once.
      expect(await testDispatcher(t.ctx.db).runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
      expect(receiver.received.length).toBe(1);
      const event = await verifyWebhook(hook.body.secret, receiver.received[0]!.body, receiver.received[0]!.headers);
      expect(event).toMatchObject({
        id: fired.body.events[0].id,
        type: 'accounting_record.reopened',
        data: { id: record.id },
      });
    });

    it('advances time for the account’s webhook schedules: a retry comes due, a delivery is given up, a failing endpoint is disabled', async () => {
      const api = await sandboxAccount(t.ctx);
      const other = await sandboxAccount(t.ctx);
      const receiver = await startReceiver();
      receiver.plan(Array(10).fill('fail'));
      const hook = await api.post(WEBHOOKS, { url: receiver.url, event_types: ['accounting_record.ready_for_export'] });
      expect(hook.status, hook.text).toBe(200);
      await api.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db);
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 0 });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 0 }); // waiting for its backoff
      const advance = (accountId: string, seconds: number) =>
        operator(t.ctx).post(`/sandbox/v1/accounts/${accountId}/advance-time`, { seconds });

      // Another account's time does not move this one's.
      expect((await advance(other.accountId, 3600)).body).toEqual({ deliveries: 0, endpoints: 0 });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 0 });
      expect((await advance(api.accountId, 60)).body).toEqual({ deliveries: 1, endpoints: 1 });
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 0 });
      expect(receiver.received).toHaveLength(2);

      // Three days on: the delivery is given up.
      await advance(api.accountId, 3 * 24 * 3600);
      expect(await dispatcher.runOnce()).toMatchObject({ attempted: 1, delivered: 0 });
      const stored = () =>
        t.ctx.db.direct
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('account_id', '=', api.accountId)
          .execute();
      expect(await stored()).toEqual([{ status: 'FAILED' }]);

      // Five days of failures: the next failed attempt disables the endpoint, saying why.
      await api.readyRecord();
      await advance(api.accountId, 2 * 24 * 3600);
      await dispatcher.runOnce();
      const endpoint = await api.get(`${WEBHOOKS}/${hook.body.id}`);
      expect(endpoint.body).toMatchObject({
        status: 'DISABLED',
        disabled_reason: expect.stringMatching(/^Every delivery attempt failed for 5 days/),
      });
      const bad = await advance(api.accountId, 0);
      expect([bad.status, bad.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
    });

    it('refuses an object the account does not have, a closed account, a bad type or a client’s token, writing nothing', async () => {
      const api = await sandboxAccount(t.ctx);
      const other = await sandboxAccount(t.ctx);
      const theirs = await other.readyRecord();
      const fire = (accountId: string, body: object, as = operator(t.ctx)) => as.post(eventsUrl(accountId), body);
      const mine = await api.readyRecord();
      const before = (await api.get('/v1/events', { limit: '100' })).body.items.length;
      const foreign = await fire(api.accountId, { type: 'accounting_record.exported', object_id: theirs.id });
      expect([foreign.status, foreign.body.error_code]).toEqual([404, 'NOT_FOUND']);
      const noField = await fire(api.accountId, { type: 'field_values.changed', object_id: 'extended_field_nothing' });
      expect(noField.status).toBe(404);
      const badType = await fire(api.accountId, { type: 'ACCOUNTING_RECORD_READY_FOR_EXPORT', object_id: theirs.id });
      expect([badType.status, badType.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
      const misplaced = await fire(api.accountId, {
        type: 'accounting_record.exported',
        object_id: mine.id,
        operation: 'CREATED',
      });
      expect([misplaced.status, misplaced.body.details]).toEqual([
        400,
        { errors: [{ path: '/operation', message: 'and svc_ids are for field_values.changed only' }] },
      ]);
      const asClient = await fire(api.accountId, { type: 'accounting_record.exported', object_id: theirs.id }, api);
      expect(asClient.status).toBe(401);
      expect((await operator(t.ctx).delete(`/sandbox/v1/accounts/${other.accountId}`)).status).toBe(200);
      const closed = await fire(other.accountId, { type: 'accounting_record.exported', object_id: theirs.id });
      expect([closed.status, closed.body]).toEqual([
        404,
        errorBody('NOT_FOUND', {
          details: { account_id: other.accountId },
        }),
      ]);
      expect((await api.get('/v1/events', { limit: '100' })).body.items.length).toBe(before);
    });
  },
  ENV,
);
