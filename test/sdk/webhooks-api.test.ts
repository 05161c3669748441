import { expect, it } from 'vitest';
import {
  SvcAuthError,
  SvcClient,
  SvcNotFoundError,
  SvcValidationError,
  type FeedEvent,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEndpointCreated,
} from '../../client/src/index.js';
import { verifyWebhook } from '../../client/src/webhooks.js';
import { startReceiver, testDispatcher } from '../support/webhooks.js';
import { describeLive } from './live-server.js';

const READY = 'accounting_record.ready_for_export';
const ID = /^whk_[0-9a-z]{26}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describeLive(
  'SDK: webhook endpoints and the event feed',
  (s) => {
    it('creates, reads, lists, updates, disables, enables, rotates and deletes endpoints, typed', async () => {
      const { clientId, clientSecret } = await s.live.credentials(['webhooks.write']);
      const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret });

      const made: WebhookEndpointCreated = await client.webhooks.create({
        url: 'https://erp.example.com/svc',
        event_types: [READY],
        description: 'ERP',
      });
      expect(made).toEqual({
        id: expect.stringMatching(ID),
        url: 'https://erp.example.com/svc',
        description: 'ERP',
        event_types: [READY],
        status: 'ENABLED',
        disabled_reason: null,
        disabled_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: made.created_at,
        secret: expect.stringMatching(SECRET),
      });
      const { secret, ...endpoint } = made;
      expect(await client.webhooks.get(made.id)).toEqual(endpoint);
      expect(await client.webhooks.secrets(made.id)).toEqual({ secrets: [{ secret, expires_at: null }] });

      const second = await client.webhooks.create({
        url: 'https://b.example.com/',
        event_types: ['field_values.changed'],
      });
      const page = await client.webhooks.list({ limit: 1 });
      expect(page).toEqual({ items: [endpoint], has_next_page: true, next_cursor: expect.any(String) });
      const all: WebhookEndpoint[] = await collect(client.webhooks.listAll({ limit: 1 }));
      expect(all.map((e) => e.id)).toEqual([made.id, second.id]);

      const updated = await client.webhooks.update(made.id, {
        event_types: [READY, 'accounting_record.exported'],
        description: null,
      });
      expect(updated).toMatchObject({ event_types: [READY, 'accounting_record.exported'], description: null });
      const disabled = await client.webhooks.disable(made.id);
      expect(disabled).toMatchObject({
        status: 'DISABLED',
        disabled_reason: `Disabled by client ${clientId}.`,
        disabled_at: expect.stringMatching(ISO),
      });
      expect(await client.webhooks.enable(made.id)).toMatchObject({
        status: 'ENABLED',
        disabled_reason: null,
        disabled_at: null,
      });

      const rotated = await client.webhooks.rotateSecret(made.id, { previous_expires_in_seconds: 60 });
      expect(rotated.secrets).toEqual([
        { secret: expect.stringMatching(SECRET), expires_at: null },
        { secret, expires_at: expect.stringMatching(ISO) },
      ]);
      expect(rotated.secrets[0]!.secret).not.toBe(secret);
      const immediate = await client.webhooks.rotateSecret(made.id, { previous_expires_in_seconds: 0 });
      expect(immediate.secrets).toHaveLength(1);
      expect((await client.webhooks.rotateSecret(second.id)).secrets).toHaveLength(2);

      const refused = await client.webhooks
        .create({ url: 'ftp://erp.example.com/hooks', event_types: [READY] })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SvcValidationError);
      expect(refused).toMatchObject({
        status: 400,
        error_code: 'INVALID_REQUEST',
        details: { errors: [{ path: '/url', message: 'must be an http or https URL' }] },
      });

      expect(await client.webhooks.delete(made.id)).toEqual({});
      const gone = await client.webhooks.get(made.id).catch((e: unknown) => e);
      expect(gone).toBeInstanceOf(SvcNotFoundError);
      expect(gone).toMatchObject({ status: 404, details: { webhook_id: made.id } });

      // Reading needs webhooks.read at least: a records-only client is refused.
      const other = await s.live.credentials(['accounting.record.read']);
      const stranger = new SvcClient({
        baseUrl: s.live.url,
        clientId: other.clientId,
        clientSecret: other.clientSecret,
      });
      const forbidden = await stranger.webhooks.list().catch((e: unknown) => e);
      expect(forbidden).toBeInstanceOf(SvcAuthError);
      expect(forbidden).toMatchObject({ status: 403, error_code: 'FORBIDDEN' });
    });

    it('delivers to a receiver, reads the delivery log, redelivers one event and every event since a time, and reads the feed', async () => {
      const creds = await s.live.credentials([
        'webhooks.write',
        'events.read',
        'accounting.record.admin',
        'field_values.write',
        'fields.write',
      ]);
      const client = new SvcClient({ baseUrl: s.live.url, ...creds });
      const receiver = await startReceiver();
      const dispatcher = testDispatcher(s.live.ctx.db);
      const hook = await client.webhooks.create({ url: receiver.url, event_types: [READY] });

      const before = new Date().toISOString();
      const created = await client.review.createRecords([
        {
          type: 'CARD_PAYMENT',
          review_status: 'READY_FOR_EXPORT',
          amount: { amount: 10, currency: 'USD' },
          posted_at: '2026-11-20T09:00:00Z',
        },
        {
          type: 'CARD_PAYMENT',
          review_status: 'READY_FOR_EXPORT',
          amount: { amount: 20, currency: 'USD' },
          posted_at: '2026-11-20T09:00:00Z',
        },
      ]);
      const field = await client.fields.create({ name: 'Department', group: 'ACCOUNTING' });
      await client.fieldValues.create(field.svc_id, [{ value: 'Sales' }]);

      receiver.plan(['fail']);
      await dispatcher.runOnce();
      dispatcher.advance(10);
      await dispatcher.runOnce();
      expect(receiver.received.map((r) => r.behaviour)).toEqual(['fail', 'ok', 'ok']);
      const bodies = await Promise.all(
        receiver.received.map(async (r) => ({
          id: r.headers['webhook-id'],
          event: await verifyWebhook(hook.secret, r.body, r.headers),
        })),
      );
      const ready: FeedEvent[] = await collect(client.events.listAll({ type: [READY] }));
      expect(ready.map((e) => (e.data as { id: string }).id)).toEqual(created.items.map((r) => r.id));
      expect(new Set(bodies.map((b) => b.id))).toEqual(new Set(ready.map((e) => e.id)));

      // The log, newest first; one event's attempts by event_id.
      const log = await client.webhooks.attempts(hook.id);
      expect(log.next_cursor).toBeNull();
      expect(log.items).toHaveLength(3);
      const failed = log.items.find((a) => !a.succeeded)!;
      expect(failed).toEqual({
        id: expect.any(String),
        event_id: receiver.received[0]!.headers['webhook-id'],
        event_type: READY,
        attempted_at: expect.stringMatching(ISO),
        status_code: 500,
        succeeded: false,
        latency_ms: expect.any(Number),
        response_excerpt: 'boom: the receiver failed',
        error: null,
      });
      const ofOne: WebhookAttempt[] = await collect(
        client.webhooks.attemptsAll(hook.id, { event_id: failed.event_id, limit: 1 }),
      );
      expect(ofOne.map((a) => [a.event_id, a.status_code])).toEqual([
        [failed.event_id, 200],
        [failed.event_id, 500],
      ]);
      const ofType = await client.webhooks.attempts(hook.id, { event_type: 'field_values.changed' });
      expect(ofType).toEqual({ items: [], has_next_page: false, next_cursor: null });

      // Redeliver one, then every event since before the records: the same ids again.
      expect(await client.webhooks.redeliver(hook.id, { event_id: ready[0]!.id })).toEqual({ redelivered: 1 });
      await dispatcher.runOnce();
      expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(ready[0]!.id);
      expect(await client.webhooks.redeliver(hook.id, { since: before })).toEqual({ redelivered: 2 });
      await dispatcher.runOnce();
      expect(receiver.received.slice(-2).map((r) => r.headers['webhook-id'])).toEqual(ready.map((e) => e.id));
      const wrongType = await client.webhooks.redeliver(hook.id, { event_id: 'evt_nope' }).catch((e: unknown) => e);
      expect(wrongType).toBeInstanceOf(SvcNotFoundError);

      // The feed: pages by cursor, filtered by type, and listAll hands on the cursor to resume from.
      const first = await client.events.list({ limit: 1 });
      expect(first).toEqual({
        items: [expect.objectContaining({ type: READY })],
        has_next_page: true,
        next_cursor: expect.any(String),
        has_more: true,
      });
      let resumeFrom = '';
      const everything = await collect(client.events.listAll({ limit: 2 }, { onCursor: (c) => (resumeFrom = c) }));
      expect(everything.map((e) => e.type)).toEqual([
        READY,
        READY,
        'ACCOUNTING_RECORD_READY_FOR_EXPORT',
        'field_values.changed',
      ]);
      expect(await client.events.list({ cursor: resumeFrom })).toEqual({
        items: [],
        has_next_page: false,
        next_cursor: expect.any(String),
        has_more: false,
      });
      const values = await client.events.list({ type: ['field_values.changed'] });
      expect(values.items.map((e) => e.data)).toEqual([
        { object: 'field', id: field.svc_id, operation: 'CREATED', count: 1, svc_ids: [expect.any(String)] },
      ]);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
