import { expect, it } from 'vitest';
import { SvcClient, SvcConflictError, SvcNotFoundError, type WebhookTestEvent } from '../../client/src/index.js';
import { verifyWebhook, type WebhookBody } from '../../client/src/webhooks.js';
import { startReceiver, testDispatcher } from '../support/webhooks.js';
import { describeLive } from './live-server.js';

describeLive(
  'SDK: a test event to one webhook endpoint',
  (s) => {
    it('sends a signed webhook.test that the receiver verifies, logged like any delivery; refused when disabled', async () => {
      const creds = await s.live.credentials(['webhooks.write']);
      const client = new SvcClient({ baseUrl: s.live.url, ...creds });
      const receiver = await startReceiver();
      const hook = await client.webhooks.create({
        url: receiver.url,
        event_types: ['accounting_record.ready_for_export'],
      });

      const sent: WebhookTestEvent = await client.webhooks.sendTestEvent(hook.id);
      expect(sent).toEqual({
        id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
        type: 'webhook.test',
        timestamp: expect.any(String),
        account_id: expect.any(String),
        data: { object: 'webhook_endpoint', id: hook.id },
      });
      expect(await testDispatcher(s.live.ctx.db).runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
      const got = receiver.received[0]!;
      const body: WebhookBody = await verifyWebhook(hook.secret, got.body, got.headers);
      expect(body).toEqual(sent);
      expect('type' in body && body.type === 'webhook.test' ? body.data.id : null).toBe(hook.id);
      const log = await client.webhooks.attempts(hook.id, { event_type: 'webhook.test' });
      expect(log.items.map((a) => [a.event_id, a.event_type, a.succeeded])).toEqual([[sent.id, 'webhook.test', true]]);

      await client.webhooks.disable(hook.id);
      const disabled = await client.webhooks.sendTestEvent(hook.id).catch((e: unknown) => e);
      expect(disabled).toBeInstanceOf(SvcConflictError);
      expect(disabled).toMatchObject({ status: 409, error_code: 'WEBHOOK_ENDPOINT_DISABLED' });
      const missing = await client.webhooks.sendTestEvent('whk_00000000000000000000000000').catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(SvcNotFoundError);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
