import { Type, type Static } from 'typebox';
import { Cursor, Limit, Nullable, PageLinks, Timestamp } from '../../http/schemas.js';
import { DELIVERED_EVENT_TYPES, EVENT_TYPE_NAMES, TEST_EVENT_TYPE } from './events.service.js';
import { ENDPOINT_STATUSES } from './webhooks.tables.js';

const Literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({
    type: 'string',
    enum: [...values],
    description,
    errorMessage: `must be one of: ${values.join(', ')}`,
  });

const EventType = Literals(EVENT_TYPE_NAMES, 'An event type (docs/webhooks.md has the catalogue)');
const EndpointStatus = Literals(ENDPOINT_STATUSES, 'DISABLED endpoints are sent nothing');
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where events are POSTed: an https URL whose host is not a loopback, private, link-local or metadata address (checked again at every send, on every address the name resolves to)',
  examples: ['https://erp.example.com/svc/webhooks'],
});
const EventTypes = Type.Array(EventType, {
  minItems: 1,
  maxItems: EVENT_TYPE_NAMES.length,
  uniqueItems: true,
  description: 'The event types delivered to the endpoint',
});
const Description = Type.String({ maxLength: 255, description: 'For people: what the endpoint is' });

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String({ description: 'The endpoint', examples: ['whk_01j0...'] }),
    url: Type.String({ description: 'Where events are POSTed' }),
    description: Nullable(Type.String()),
    event_types: Type.Array(EventType),
    status: EndpointStatus,
    disabled_reason: Nullable(
      Type.String({
        description: 'Why the endpoint is DISABLED: who disabled it, or the failures that made svc disable it',
      }),
    ),
    disabled_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'WebhookEndpoint' },
);
export type WebhookEndpointDto = Static<typeof WebhookEndpoint>;

const Secret = Type.String({
  description: 'A Standard Webhooks signing secret: whsec_ and 32 random bytes in base64',
  examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
});

export const WebhookEndpointCreated = Type.Object(
  { ...WebhookEndpoint.properties, secret: Secret },
  { title: 'WebhookEndpointCreated' },
);

export const WebhookEndpointCreateBody = Type.Object(
  { url: Url, event_types: EventTypes, description: Type.Optional(Nullable(Description)) },
  { additionalProperties: false, title: 'WebhookEndpointCreateRequest' },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreateBody>;

export const WebhookEndpointUpdateBody = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Nullable(Description)),
    status: Type.Optional(EndpointStatus),
  },
  {
    additionalProperties: false,
    title: 'WebhookEndpointUpdateRequest',
    description:
      'Absent members are left unchanged. status DISABLED stops deliveries (they wait); ENABLED resumes them and starts from the events that come next (redeliver `since` for those in between).',
  },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdateBody>;

export const WebhookIdParams = Type.Object(
  { webhook_id: Type.String({ minLength: 1, maxLength: 255, description: 'The endpoint' }) },
  { additionalProperties: false },
);

export const WebhookListQuery = Type.Object(
  { cursor: Type.Optional(Cursor), limit: Type.Optional(Limit(100)) },
  { additionalProperties: false },
);

export const WebhookEndpointPage = Type.Object(
  { items: Type.Array(WebhookEndpoint), ...PageLinks },
  { title: 'WebhookEndpointPage' },
);

export const WebhookSecrets = Type.Object(
  {
    secrets: Type.Array(
      Type.Object({
        secret: Secret,
        expires_at: Nullable(Timestamp),
      }),
      {
        description:
          'The secrets deliveries are signed with, the current one first (expires_at null); during a rotation also the previous one, until its expires_at',
      },
    ),
  },
  { title: 'WebhookSecrets' },
);

export const RotateSecretBody = Type.Object(
  {
    previous_expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7 * 86_400,
        default: 86_400,
        description:
          'How long deliveries are still signed with the old secret too (0 to 7 days, default 1 day): receivers switch meanwhile',
      }),
    ),
  },
  { additionalProperties: false, title: 'RotateSecretRequest' },
);

export const AttemptsQuery = Type.Object(
  {
    event_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'Only the attempts of this event' }),
    ),
    event_type: Type.Optional(
      Literals(
        DELIVERED_EVENT_TYPES,
        'Only the attempts of events of this type (docs/webhooks.md has the catalogue; webhook.test: test events)',
      ),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit(500)),
  },
  { additionalProperties: false },
);

export const WebhookAttempt = Type.Object(
  {
    id: Type.String(),
    event_id: Type.String({ description: 'The event, also the webhook-id header of the attempt' }),
    event_type: Nullable(
      Literals(
        DELIVERED_EVENT_TYPES,
        "The event's type (webhook.test: a test event); null once the event itself is past the feed's retention",
      ),
    ),
    attempted_at: Timestamp,
    status_code: Nullable(Type.Integer({ description: 'The HTTP status answered; null when none came' })),
    succeeded: Type.Boolean({ description: 'A 2xx answer: the event is delivered' }),
    latency_ms: Type.Integer(),
    response_excerpt: Nullable(Type.String({ description: "The answer's first 1024 bytes" })),
    error: Nullable(
      Type.String({ description: 'Why the attempt failed when no 2xx came: timeout, refused target, redirect…' }),
    ),
  },
  { title: 'WebhookAttempt' },
);
export type WebhookAttemptDto = Static<typeof WebhookAttempt>;

export const WebhookAttemptPage = Type.Object(
  { items: Type.Array(WebhookAttempt), ...PageLinks },
  { title: 'WebhookAttemptPage', description: 'The delivery log, newest attempt first' },
);

export const RedeliverBody = Type.Union(
  [
    Type.Object(
      { event_id: Type.String({ minLength: 1, maxLength: 255, description: 'One event of the account' }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        since: Type.String({
          format: 'date-time',
          description: 'Every event of the types the endpoint takes that occurred at or after this time',
        }),
      },
      { additionalProperties: false },
    ),
  ],
  { title: 'RedeliverRequest', errorMessage: 'must be {event_id} or {since}' },
);
export type Redeliver = Static<typeof RedeliverBody>;

export const RedeliverAnswer = Type.Object(
  { redelivered: Type.Integer({ description: 'Events queued for delivery again, due now' }) },
  { title: 'RedeliverResponse' },
);

export const TestEventBody = Type.Object({}, { additionalProperties: false, title: 'WebhookTestRequest' });

export const WebhookTestEvent = Type.Object(
  {
    id: Type.String({
      description: 'The test event: the webhook-id of its deliveries, and its event_id in the delivery log',
      examples: ['evt_01j0...'],
    }),
    type: Type.Unsafe<typeof TEST_EVENT_TYPE>({ type: 'string', enum: [TEST_EVENT_TYPE] }),
    timestamp: Timestamp,
    account_id: Type.String(),
    data: Type.Object({
      object: Type.Unsafe<'webhook_endpoint'>({ type: 'string', enum: ['webhook_endpoint'] }),
      id: Type.String({ description: 'The endpoint it was sent to' }),
    }),
  },
  {
    title: 'WebhookTestEvent',
    description:
      'A test event, as the endpoint receives it: sent on request to that endpoint alone, never in the event feed',
  },
);
export type WebhookTestEventDto = Static<typeof WebhookTestEvent>;

export const Empty = Type.Object({}, { additionalProperties: false, title: 'Empty' });
