import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { isoToMicros, microsToIso, nowMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { pageLinks, pageOf, type PageLinks } from '../../lib/pagination.js';
import type { AuthContext, Tenant } from '../auth/auth.service.js';
import { announceDeliveries } from './events.bell.js';
import { eventsRepository } from './events.repository.js';
import { eventsService, isDeliveredEventType, TEST_EVENT_TYPE, type DeliveredEventType } from './events.service.js';
import { webhooksRepository } from './webhooks.repository.js';
import type { Redeliver, WebhookAttemptDto, WebhookTestEventDto } from './webhooks.schemas.js';
import { makeDeliveries } from './webhooks.deliveries.js';
import { endpointNotFound, eventTypesOf } from './webhooks.service.js';
import type { WebhookAttemptsTable } from './webhooks.tables.js';

const REDELIVER_CHUNK = 500;

function attemptDto(row: WebhookAttemptsTable & { event_type: string | null }): WebhookAttemptDto {
  return {
    id: row.attempt_id,
    event_id: row.event_id,
    event_type: row.event_type !== null && isDeliveredEventType(row.event_type) ? row.event_type : null,
    attempted_at: microsToIso(Number(row.attempted_at)),
    status_code: row.status_code,
    succeeded: row.succeeded === 1,
    latency_ms: row.latency_ms,
    response_excerpt: row.response_excerpt,
    error: row.error,
  };
}

/** The endpoint a test event was sent to: its data is {object: "webhook_endpoint", id} (events.service.ts). */
function testEventEndpoint(dataJson: string): unknown {
  const data: unknown = JSON.parse(dataJson);
  return typeof data === 'object' && data !== null && 'id' in data ? data.id : undefined;
}

/** An endpoint's delivery log and its redeliveries (docs/webhooks.md); every write runs in its caller's transaction. */
export const deliveriesService = {
  /** The endpoint's delivery log, newest attempt first, of one event, of one event type, or all. */
  async attempts(
    ex: Executor,
    auth: AuthContext,
    endpointId: string,
    query: { eventId?: string; eventType?: DeliveredEventType; cursor?: string; limit: number },
  ): Promise<{ items: WebhookAttemptDto[] } & PageLinks> {
    if (!(await webhooksRepository.find(ex, auth.accountId, endpointId))) throw endpointNotFound(endpointId);
    // event_type joins the binding only when given, so cursors handed out before the filter existed still open.
    const binding = {
      endpoint_id: endpointId,
      event_id: query.eventId ?? null,
      ...(query.eventType === undefined ? {} : { event_type: query.eventType }),
    };
    const beforeId = query.cursor
      ? String(openCursor(auth.cursorKey, 'webhook_attempts', binding, query.cursor)[0])
      : undefined;
    const rows = await webhooksRepository.attempts(ex, auth.accountId, endpointId, {
      eventId: query.eventId,
      eventType: query.eventType,
      beforeId,
      limit: query.limit,
    });
    const page = pageOf(rows, query.limit);
    return {
      items: page.items.map(attemptDto),
      ...pageLinks(page, (last) => sealCursor(auth.cursorKey, 'webhook_attempts', binding, [last.attempt_id])),
    };
  },

  /**
   * Queues a test event (webhook.test) for one ENABLED endpoint, due now: signed, logged and retried like any
   * delivery, and only for it (not in the feed; docs/webhooks.md, "A test event"). A DISABLED endpoint is sent
   * nothing, so it is refused (409): enable it first. Answers the event as the endpoint will receive it.
   */
  async sendTest(ex: Executor, tenant: Tenant, endpointId: string): Promise<WebhookTestEventDto> {
    const endpoint = await webhooksRepository.find(ex, tenant.accountId, endpointId);
    if (!endpoint) throw endpointNotFound(endpointId);
    if (endpoint.status !== 'ENABLED') throw errors.webhookEndpointDisabled(endpointId);
    const eventId = newId('evt');
    await makeDeliveries(ex, endpoint, [eventId], nowMicros(), 'keep');
    // Last: the event holds the account's event counter until the commit.
    const row = await eventsService.emitTest(ex, tenant, endpointId, eventId);
    return {
      id: row.event_id,
      type: TEST_EVENT_TYPE,
      timestamp: microsToIso(row.occurred_at),
      account_id: row.account_id,
      data: { object: 'webhook_endpoint', id: endpointId },
    };
  },

  /**
   * Queues events for the endpoint again, due now, with the same ids (a read of the event table): one event (of
   * a type the endpoint takes), or every event of its types since a time. A disabled endpoint gets them when
   * enabled.
   */
  async redeliver(
    ex: Executor,
    tenant: Tenant,
    endpointId: string,
    input: Redeliver,
  ): Promise<{ redelivered: number }> {
    const endpoint = await webhooksRepository.find(ex, tenant.accountId, endpointId);
    if (!endpoint) throw endpointNotFound(endpointId);
    const types = eventTypesOf(endpoint);
    const now = nowMicros();
    if ('event_id' in input) {
      const event = await eventsRepository.find(ex, tenant.accountId, input.event_id);
      if (!event) throw errors.notFound(`Event ${input.event_id}`, { event_id: input.event_id });
      // A test event goes again to the endpoint it was sent to, as any event it took.
      const testOfThis = event.type === TEST_EVENT_TYPE && testEventEndpoint(event.data_json) === endpointId;
      if (!testOfThis && !types.some((t) => t === event.type)) {
        throw errors.invalidField('/event_id', `is a ${event.type} event, which the endpoint does not take`);
      }
      const redelivered = await makeDeliveries(ex, endpoint, [event.event_id], now, 'due-again');
      await announceDeliveries(ex);
      return { redelivered };
    }
    const since = isoToMicros(input.since);
    if (since === null) throw errors.invalidField('/since', 'must be an RFC 3339 time with a zone');
    let after = 0;
    let count = 0;
    for (;;) {
      const events = await eventsRepository.since(ex, tenant.accountId, since, types, after, REDELIVER_CHUNK);
      if (events.length === 0) break;
      count += await makeDeliveries(
        ex,
        endpoint,
        events.map((e) => e.event_id),
        now,
        'due-again',
      );
      after = Number(events.at(-1)!.seq);
    }
    if (count > 0) await announceDeliveries(ex);
    return { redelivered: count };
  },
};
