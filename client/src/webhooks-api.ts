import { catchUp, paginate } from './pages.js';
import { writer, newIdempotencyKey, type RequestOptions, type Transport, type WriteOptions } from './transport.js';
import type {
  EventFeedPage,
  EventFeedQuery,
  FeedEvent,
  RedeliverRequest,
  RedeliverResponse,
  RotateWebhookSecretRequest,
  WebhookAttempt,
  WebhookAttemptPage,
  WebhookAttemptQuery,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointCreateRequest,
  WebhookEndpointListQuery,
  WebhookEndpointPage,
  WebhookEndpointUpdateRequest,
  WebhookSecrets,
  WebhookTestEvent,
} from './types.js';

const enc = encodeURIComponent;
type ListQuery<Q> = Omit<Q, 'cursor'>;

/* Webhook endpoints and the event feed. */

/**
 * The account's webhook endpoints (docs/webhooks.md): reads need webhooks.read or webhooks.write, everything else
 * webhooks.write. The secret of a new endpoint is in create's answer (and at `secrets`); a rotation answers the
 * new one.
 */
export function webhooksApi(http: Transport) {
  const write = writer(http);
  /** One page, in creation order. */
  const list = (query: WebhookEndpointListQuery = {}, options?: RequestOptions) =>
    http.request<WebhookEndpointPage>({ method: 'GET', path: '/v1/webhooks', query, options });
  /** Absent members unchanged; `status` DISABLED pauses deliveries, ENABLED resumes them. */
  const update = (webhookId: string, changes: WebhookEndpointUpdateRequest, options?: WriteOptions) =>
    write<WebhookEndpoint>('PUT', `/v1/webhooks/${enc(webhookId)}`, changes, options);
  /** One page of the delivery log, newest attempt first; `event_id` keeps one event's attempts. */
  const attempts = (webhookId: string, query: WebhookAttemptQuery = {}, options?: RequestOptions) =>
    http.request<WebhookAttemptPage>({
      method: 'GET',
      path: `/v1/webhooks/${enc(webhookId)}/attempts`,
      query,
      options,
    });
  return {
    list,
    listAll: (query: ListQuery<WebhookEndpointListQuery> = {}, options?: RequestOptions) =>
      paginate((q: WebhookEndpointListQuery) => list(q, options), query),
    get: (webhookId: string, options?: RequestOptions) =>
      http.request<WebhookEndpoint>({ method: 'GET', path: `/v1/webhooks/${enc(webhookId)}`, options }),
    /**
     * Sent the events of its types that happen from now on; answers the endpoint with its secret. An account has at
     * most 20 endpoints: one more is a SvcConflictError with error_code WEBHOOK_ENDPOINT_LIMIT_REACHED.
     */
    create: (input: WebhookEndpointCreateRequest, options?: WriteOptions) =>
      write<WebhookEndpointCreated>('POST', '/v1/webhooks', input, options),
    update,
    /** Its deliveries wait; the reason names who disabled it. */
    disable: (webhookId: string, options?: WriteOptions) => update(webhookId, { status: 'DISABLED' }, options),
    /** Waiting deliveries are due at once; events from now on are delivered (redeliver `since` for the gap). */
    enable: (webhookId: string, options?: WriteOptions) => update(webhookId, { status: 'ENABLED' }, options),
    /** With its deliveries and log; the events stay in the feed. */
    delete: (webhookId: string, options?: WriteOptions) =>
      http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/v1/webhooks/${enc(webhookId)}`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    /** The signing secrets: the current one first, and during a rotation the previous one until it expires. */
    secrets: (webhookId: string, options?: RequestOptions) =>
      http.request<WebhookSecrets>({ method: 'GET', path: `/v1/webhooks/${enc(webhookId)}/secret`, options }),
    /** A new secret; the old one keeps signing beside it for `previous_expires_in_seconds` (default 1 day). */
    rotateSecret: (webhookId: string, input: RotateWebhookSecretRequest = {}, options?: WriteOptions) =>
      write<WebhookSecrets>('POST', `/v1/webhooks/${enc(webhookId)}/secret/rotate`, input, options),
    attempts,
    attemptsAll: (webhookId: string, query: ListQuery<WebhookAttemptQuery> = {}, options?: RequestOptions) =>
      paginate<WebhookAttempt, WebhookAttemptQuery>((q) => attempts(webhookId, q, options), query),
    /** `{event_id}`: that event again; `{since}`: every event of its types since then. Same ids, due now. */
    redeliver: (webhookId: string, input: RedeliverRequest, options?: WriteOptions) =>
      write<RedeliverResponse>('POST', `/v1/webhooks/${enc(webhookId)}/redeliver`, input, options),
    /**
     * A signed test event (`webhook.test`) to this endpoint alone, delivered and logged like any other (its answer's
     * `id` is the `webhook-id` and the delivery log's `event_id`); not in the feed. A disabled endpoint: a
     * SvcConflictError with error_code WEBHOOK_ENDPOINT_DISABLED.
     */
    sendTestEvent: (webhookId: string, options?: WriteOptions) =>
      write<WebhookTestEvent>('POST', `/v1/webhooks/${enc(webhookId)}/test`, {}, options),
  };
}

/**
 * The account's event feed (`GET /v1/events`): the events webhooks deliver, with the same ids, in commit order.
 * The feed has no end: keep a page's `next_cursor` and ask again with it (and the same `type` filter) later.
 */
export function eventsApi(http: Transport) {
  const list = (query: EventFeedQuery = {}, options?: RequestOptions) =>
    http.request<EventFeedPage>({ method: 'GET', path: '/v1/events', query, options });
  return {
    list,
    /**
     * Every event there is now after `query.cursor` (from the oldest kept without one), page after page, until
     * `has_next_page` is false; `onCursor` receives each page's `next_cursor`, the one to resume from.
     */
    listAll: (
      query: EventFeedQuery = {},
      options?: RequestOptions & { onCursor?: (nextCursor: string) => void },
    ): AsyncGenerator<FeedEvent, void, undefined> => catchUp((q) => list(q, options), query, options?.onCursor),
  };
}
