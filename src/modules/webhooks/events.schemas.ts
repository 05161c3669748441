import { Type, type TSchema } from 'typebox';
import { Cursor, Limit, oneOf } from '../../http/schemas.js';
import { COMPAT_READY_FOR_EXPORT, EVENT_TYPE_NAMES, EVENT_TYPES, TEST_EVENT_TYPE } from './events.service.js';
import { WebhookTestEvent } from './webhooks.schemas.js';

/** The events' schemas: the feed's items, webhook bodies, and the OpenAPI document's `webhooks` section. */
const ofTypes = (types: readonly string[]) => oneOf(types, 'The event type');

const envelope = (types: readonly string[], data: TSchema, title: string) =>
  Type.Object(
    {
      id: Type.String({ description: 'The event; the webhook-id of every delivery of it', examples: ['evt_01j0...'] }),
      type: ofTypes(types),
      timestamp: Type.String({ format: 'date-time', description: 'When the change happened' }),
      account_id: Type.String(),
      data,
    },
    { title },
  );

const RECORD_TYPES = [
  'accounting_record.ready_for_export',
  'accounting_record.exported',
  'accounting_record.export_failed',
  'accounting_record.reopened',
  'accounting_record.receipt_attached',
] as const;

export const CompatReadyForExport = Type.Object(
  {
    event_type: oneOf([COMPAT_READY_FOR_EXPORT] as const),
    accounting_record_ids: Type.Array(Type.String(), { description: 'The records that became READY_FOR_EXPORT' }),
    company_id: Type.String({ description: 'The account' }),
  },
  { $id: 'AccountingRecordReadyForExport', title: 'AccountingRecordReadyForExport' },
);

/** Every event, as the feed answers it and webhooks deliver it. */
export const AccountEvent = Type.Union(
  [
    envelope(
      RECORD_TYPES,
      Type.Object({
        object: oneOf(['accounting_record'] as const),
        id: Type.String({ description: 'The record' }),
        version: Type.Integer({ description: "The record's version the change produced" }),
        error_message: Type.Optional(
          Type.String({ description: 'accounting_record.export_failed: the reported error' }),
        ),
        receipt_id: Type.Optional(
          Type.String({ description: 'accounting_record.receipt_attached: the receipt (docs/receipts.md)' }),
        ),
      }),
      'AccountingRecordEvent',
    ),
    envelope(
      ['field_values.changed'],
      Type.Object({
        object: oneOf(['field'] as const),
        id: Type.String({ description: 'The field whose values changed' }),
        operation: Type.Unsafe<'CREATED' | 'UPDATED' | 'DELETED'>({
          type: 'string',
          enum: ['CREATED', 'UPDATED', 'DELETED'],
        }),
        count: Type.Integer(),
        svc_ids: Type.Array(Type.String(), { description: 'The values of the batch' }),
      }),
      'FieldValuesChangedEvent',
    ),
    envelope(
      ['integration.connected', 'integration.disconnected'],
      Type.Object({
        object: oneOf(['integration'] as const),
        id: Type.String({ description: 'The integration' }),
      }),
      'IntegrationEvent',
    ),
    envelope([COMPAT_READY_FOR_EXPORT], Type.Ref('AccountingRecordReadyForExport'), 'CompatReadyForExportEvent'),
  ],
  {
    $id: 'AccountEvent',
    title: 'AccountEvent',
    description:
      "An event of the account. Thin: the changed object's id (and version); fetch its current state through the API.",
  },
);

export const EventFeedQuery = Type.Object(
  {
    type: Type.Optional(
      Type.Array(oneOf(EVENT_TYPE_NAMES), {
        minItems: 1,
        maxItems: EVENT_TYPE_NAMES.length,
        description:
          'Only events of these types (repeat the parameter: type=a&type=b); a cursor is bound to the types it was given with',
      }),
    ),
    cursor: Type.Optional(Cursor),
    limit: Type.Optional(Limit(1000)),
  },
  { additionalProperties: false },
);

export const EventFeedPage = Type.Object(
  {
    items: Type.Array(Type.Ref('AccountEvent')),
    has_next_page: Type.Boolean({ description: 'More events are there already: ask again at once with next_cursor' }),
    next_cursor: Type.String({
      description: 'Where to ask next: always given, also at the end (the feed has no end); keep it to resume',
    }),
    // The feed's name before svc's lists took one convention (docs/design.md, "Pagination"): answered for now.
    has_more: Type.Boolean({
      deprecated: true,
      description:
        'Deprecated: the same as has_next_page, which replaces it; answered until a release note says otherwise',
    }),
  },
  { title: 'EventFeedPage' },
);

const SIGNATURE_HEADERS = [
  { name: 'webhook-id', description: 'The event id: the same on every attempt and redelivery (deduplicate on it)' },
  { name: 'webhook-timestamp', description: 'Seconds since the epoch when the attempt was signed' },
  {
    name: 'webhook-signature',
    description: 'v1,<base64 HMAC-SHA256> per valid secret, space-separated (Standard Webhooks)',
  },
];

/** One entry of the OpenAPI `webhooks` section: a POST of `body` with the signature headers. */
const webhookEntry = (type: string, summary: string, description: string, schema: object) => ({
  post: {
    operationId: `webhook_${type.replace(/[^A-Za-z0-9]+/g, '_')}`,
    summary,
    description,
    tags: ['Webhooks'],
    parameters: SIGNATURE_HEADERS.map((h) => ({ in: 'header', required: true, schema: { type: 'string' }, ...h })),
    requestBody: { required: true, content: { 'application/json': { schema } } },
    responses: {
      '2XX': { description: 'Delivered. Anything else (a redirect included, never followed) is retried.' },
    },
  },
});

/** The OpenAPI 3.1 `webhooks` section: what svc POSTs to endpoints, one entry per event type, and the test event. */
export function webhooksDocument(): Record<string, unknown> {
  return {
    ...Object.fromEntries(
      EVENT_TYPE_NAMES.map((type) => [
        type,
        type === COMPAT_READY_FOR_EXPORT
          ? webhookEntry(
              type,
              EVENT_TYPES[type],
              "Brex's form: the body is {event_type, accounting_record_ids, company_id} (the feed's data of this event); the event id is the webhook-id header.",
              { $ref: '#/components/schemas/AccountingRecordReadyForExport' },
            )
          : webhookEntry(type, EVENT_TYPES[type], 'The body is the event as the feed answers it.', {
              $ref: '#/components/schemas/AccountEvent',
            }),
      ]),
    ),
    [TEST_EVENT_TYPE]: webhookEntry(
      TEST_EVENT_TYPE,
      'A test event, sent on request (POST /v1/webhooks/{webhook_id}/test) to that endpoint alone',
      'Not a change of the account: never in the event feed, and no endpoint subscribes to it. Acknowledge it with a 2xx like any event.',
      WebhookTestEvent,
    ),
  };
}
