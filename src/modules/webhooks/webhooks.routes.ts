import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { auditOf, authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { deliveriesService } from './deliveries.service.js';
import { EventFeedPage, EventFeedQuery } from './events.schemas.js';
import { eventsService } from './events.service.js';
import { MAX_ENDPOINTS_PER_ACCOUNT, webhooksService, type TargetRules } from './webhooks.service.js';
import {
  AttemptsQuery,
  Empty,
  RedeliverAnswer,
  RedeliverBody,
  RotateSecretBody,
  TestEventBody,
  WebhookAttemptPage,
  WebhookEndpoint,
  WebhookEndpointCreateBody,
  WebhookEndpointCreated,
  WebhookEndpointPage,
  WebhookEndpointUpdateBody,
  WebhookIdParams,
  WebhookListQuery,
  WebhookSecrets,
  WebhookTestEvent,
} from './webhooks.schemas.js';
import { sendPrewritten } from '../../http/serialization.js';

const tags = ['Webhooks'];
const READ = ['webhooks.read', 'webhooks.write'] as const;
const WRITE = ['webhooks.write'] as const;

/** Webhook endpoints (`/v1/webhooks`) and the event feed (`/v1/events`): docs/webhooks.md. */
export function webhooksRoutes(db: Db, rules: TargetRules): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v1/events',
      {
        config: { scopes: ['events.read', ...READ] },
        schema: {
          operationId: 'listEvents',
          summary: "The account's events after a cursor",
          description:
            'The event feed: every event of the account in commit order (the same events, with the same ids, that webhooks deliver), kept 30 days. Without a cursor: from the oldest kept. next_cursor is always given: keep it, and ask again with it to get what came since; has_next_page says more is there already (has_more, its deprecated name, says the same). type (repeated) keeps only events of those types; ask again with the same types.',
          tags: ['Events'],
          querystring: EventFeedQuery,
          response: { 200: EventFeedPage },
        },
      },
      async (request, reply) =>
        sendPrewritten(
          reply,
          await eventsService.feed(db.direct, authOf(request), {
            cursor: request.query.cursor,
            limit: request.query.limit ?? 100,
            types: request.query.type,
          }),
        ),
    );

    app.post(
      '/v1/webhooks',
      {
        config: { scopes: WRITE, holdsSecret: true },
        schema: {
          operationId: 'createWebhookEndpoint',
          summary: 'Create a webhook endpoint',
          description: `The endpoint is sent the events of its types that happen from now on, signed per Standard Webhooks with the secret answered here (also at GET …/secret). An account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints (enabled or disabled): one more is refused with 409 WEBHOOK_ENDPOINT_LIMIT_REACHED, details.max_webhook_endpoints naming the limit, and nothing is created.`,
          tags,
          body: WebhookEndpointCreateBody,
          response: { 200: WebhookEndpointCreated, ...errorResponses(400, 409) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => webhooksService.create(ex, auditOf(request), request.body, rules)),
    );

    app.get(
      '/v1/webhooks',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'listWebhookEndpoints',
          summary: 'List webhook endpoints',
          description: "The account's endpoints in creation order, a page at a time.",
          tags,
          querystring: WebhookListQuery,
          response: { 200: WebhookEndpointPage },
        },
      },
      async (request) =>
        webhooksService.list(db.direct, authOf(request), {
          cursor: request.query.cursor,
          limit: request.query.limit ?? 100,
        }),
    );

    app.get(
      '/v1/webhooks/:webhook_id',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'getWebhookEndpoint',
          summary: 'Get a webhook endpoint',
          description: 'With its status and, when DISABLED, why.',
          tags,
          params: WebhookIdParams,
          response: { 200: WebhookEndpoint, ...errorResponses(404) },
        },
      },
      async (request) => webhooksService.get(db.direct, authOf(request), request.params.webhook_id),
    );

    app.put(
      '/v1/webhooks/:webhook_id',
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'updateWebhookEndpoint',
          summary: 'Update, disable or enable a webhook endpoint',
          description:
            'Absent members unchanged. status DISABLED pauses its deliveries (the reason names who disabled it); ENABLED resumes them at once and takes the events that come next (redeliver since for those in between). A new url is checked as at create.',
          tags,
          params: WebhookIdParams,
          body: WebhookEndpointUpdateBody,
          response: { 200: WebhookEndpoint, ...errorResponses(400, 404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          webhooksService.update(ex, auditOf(request), request.params.webhook_id, request.body, rules),
        ),
    );

    app.delete(
      '/v1/webhooks/:webhook_id',
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'deleteWebhookEndpoint',
          summary: 'Delete a webhook endpoint',
          description: 'With its pending deliveries and its delivery log; the events stay in the feed.',
          tags,
          params: WebhookIdParams,
          response: { 200: Empty, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          webhooksService.delete(ex, auditOf(request), request.params.webhook_id),
        ),
    );

    app.get(
      '/v1/webhooks/:webhook_id/secret',
      {
        config: { scopes: WRITE, holdsSecret: true },
        schema: {
          operationId: 'getWebhookSecret',
          summary: "A webhook endpoint's signing secrets",
          description: 'The current secret, and during a rotation the previous one with when it stops signing.',
          tags,
          params: WebhookIdParams,
          response: { 200: WebhookSecrets, ...errorResponses(404) },
        },
      },
      async (request) => webhooksService.secrets(db.direct, authOf(request), request.params.webhook_id),
    );

    app.post(
      '/v1/webhooks/:webhook_id/secret/rotate',
      {
        config: { scopes: WRITE, holdsSecret: true },
        schema: {
          operationId: 'rotateWebhookSecret',
          summary: "Rotate a webhook endpoint's secret",
          description:
            'A new secret signs from now on; the old one signs beside it (two signatures per delivery) for previous_expires_in_seconds, so receivers switch without a failed delivery.',
          tags,
          params: WebhookIdParams,
          body: RotateSecretBody,
          response: { 200: WebhookSecrets, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          webhooksService.rotate(
            ex,
            auditOf(request),
            request.params.webhook_id,
            request.body.previous_expires_in_seconds ?? 86_400,
          ),
        ),
    );

    app.get(
      '/v1/webhooks/:webhook_id/attempts',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'listWebhookAttempts',
          summary: "A webhook endpoint's delivery log",
          description:
            'Every attempt, newest first: the event and its type, when, the status answered, latency, the first bytes of the answer, and what went wrong. event_id: the attempts of one event; event_type: of one event type.',
          tags,
          params: WebhookIdParams,
          querystring: AttemptsQuery,
          response: { 200: WebhookAttemptPage, ...errorResponses(404) },
        },
      },
      async (request) =>
        deliveriesService.attempts(db.direct, authOf(request), request.params.webhook_id, {
          eventId: request.query.event_id,
          eventType: request.query.event_type,
          cursor: request.query.cursor,
          limit: request.query.limit ?? 100,
        }),
    );

    app.post(
      '/v1/webhooks/:webhook_id/redeliver',
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'redeliverWebhookEvents',
          summary: 'Redeliver one event, or every event since a time',
          description:
            '{event_id}: that event (of a type the endpoint takes); {since}: every event of its types that occurred since. Delivered again with the same webhook-id, with a fresh retry schedule.',
          tags,
          params: WebhookIdParams,
          body: RedeliverBody,
          response: { 200: RedeliverAnswer, ...errorResponses(400, 404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          deliveriesService.redeliver(ex, authOf(request), request.params.webhook_id, request.body),
        ),
    );

    app.post(
      '/v1/webhooks/:webhook_id/test',
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'sendWebhookTestEvent',
          summary: 'Send a test event to a webhook endpoint',
          description:
            'A webhook.test event, {object: "webhook_endpoint", id}, is queued for this endpoint alone, due now, and delivered like any other: signed with its secrets, in its delivery log (event_type webhook.test), retried until a 2xx. It is no change of the account: not in the event feed, sent to no other endpoint. A DISABLED endpoint is sent nothing: 409 WEBHOOK_ENDPOINT_DISABLED, nothing queued.',
          tags,
          params: WebhookIdParams,
          body: TestEventBody,
          response: { 200: WebhookTestEvent, ...errorResponses(404, 409) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          deliveriesService.sendTest(ex, authOf(request), request.params.webhook_id),
        ),
    );
  };
}
