import { randomUUID } from 'node:crypto';
import type { ApiClient } from './api.js';
import { routeName, type Estate } from './reliability-routes.js';
import type { RouteScopes } from './routes.js';

/**
 * Requests of each operation of the route table aimed at an estate's objects (reliability-routes.ts): its path,
 * valid bodies and queries that name those objects, and a sender that keys every write.
 */

/** The path with its parameters naming the estate's objects. */
export function pathOf(route: RouteScopes, e: Estate): string {
  const edited = route.path.endsWith('/coding')
    ? e.editable.coding
    : route.path.endsWith('/split')
      ? e.editable.split
      : route.path.endsWith('/merge')
        ? e.editable.merge
        : route.path.endsWith('/suggestions/accept')
          ? e.editable.accept
          : null;
  const ids: Record<string, string> = {
    id: e.fieldId,
    field_id: e.fieldId,
    svc_id: e.value.svc_id,
    record_id: edited?.id ?? e.recordId,
    line_id: e.editable.split.lineIds[0]!,
    client_id: e.spareClientId,
    integration_id: e.integration.id,
    webhook_id: e.webhook.id,
    app_id: e.connectedAppId,
    rule_id: e.ruleId,
    receipt_id: e.receiptId,
  };
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (!(name in ids)) throw new Error(`no object for path parameter {${name}} of ${route.path}: add it to pathOf`);
    return ids[name]!;
  });
}

/**
 * Valid requests of each operation that name the estate's objects in the body (batch items) or the query
 * (ids, cursors). Operations without an entry send their path only; `bodiesCover` makes a new write route
 * with a body fail until it has its entry here.
 */
export function requestsOf(
  route: RouteScopes,
  e: Estate,
): { body?: unknown; query?: Record<string, string | string[]> }[] {
  const v = e.value;
  const byAddress = [{ svc_id: v.svc_id }, { remote_id: v.remote_id }, { value_id: v.value_id }];
  const spare = { field_id: e.fieldId, svc_id: e.spareValueId };
  switch (routeName(route)) {
    case 'POST /internal/v1/accounting/records/{record_id}/receipts':
    case 'POST /internal/v1/receipts':
      return [{ body: e.receiptJpeg }];
    case 'PUT /internal/v1/accounting/receipt-policy':
      // Above any amount the estate's records carry: a write all the same, and no record of the estate needs one.
      return [{ body: { rules: [{ currency: 'USD', above_minor: 100_000_000, record_types: ['BILL_EXPENSE'] }] } }];
    case 'GET /v1/fields':
      return [{ query: { cursor: e.cursors.fields } }, { query: { 'field_id[]': e.fieldId } }];
    case 'POST /v1/fields':
      return [{ body: { name: 'mine', group: 'USER' } }];
    case 'PUT /v1/fields/{id}':
      return [{ body: { name: 'taken over' } }];
    case 'GET /v1/fields/{field_id}/values':
      return [{}, { query: { cursor: e.cursors.values } }, { query: { 'svc_id[]': v.svc_id } }];
    case 'POST /v1/fields/{field_id}/values':
      return [{ body: { items: [{ value: 'planted' }] } }];
    case 'PUT /v1/fields/{field_id}/values':
      return byAddress.map((a) => ({ body: { items: [{ ...a, data: { value: 'changed', is_disabled: true } }] } }));
    case 'DELETE /v1/fields/{field_id}/values':
      return byAddress.map((a) => ({ body: { items: [a] } }));
    case 'GET /v3/accounting/records':
      return [{ query: { ids: [e.recordId] } }, { query: { cursor: e.cursors.records } }];
    case 'POST /v3/accounting/records/export-results':
      return [{ body: { results: [{ accounting_record_id: e.recordId, success: { reference_id: 'stolen' } }] } }];
    case 'POST /internal/v1/accounting/exports':
      return [{ body: { format: 'csv', accounting_record_ids: [e.recordId], account_field_id: e.fieldId } }];
    case 'POST /internal/v1/accounting/records':
      return [
        {
          body: {
            items: [
              {
                type: 'BILL_EXPENSE',
                amount: { amount: 5, currency: 'USD' },
                posted_at: '2026-06-11T09:09:05.840865Z',
                lines: [
                  { amount: { amount: 5, currency: 'USD' }, field_values: [{ field_id: e.fieldId, svc_id: v.svc_id }] },
                ],
              },
            ],
          },
        },
      ];
    case 'POST /internal/v1/accounting/records/{record_id}/review-status':
      return [{ body: { review_status: 'REVIEW' } }];
    case 'POST /internal/v1/accounting/records/review-status':
      // After the single move (the route table's order) took the record to REVIEW.
      return [{ body: { review_status: 'PREPARE', records: [{ id: e.recordId }] } }];
    case 'POST /internal/v1/accounting/records/{record_id}/coding':
      return [
        {
          body: {
            version: 1,
            lines: [
              { line_id: e.editable.coding.lineIds[0], field_values: [{ field_id: e.fieldId, svc_id: v.svc_id }] },
            ],
          },
        },
      ];
    case 'POST /internal/v1/accounting/records/coding':
      return [
        {
          body: {
            items: [
              {
                record_id: e.editable.bulkCoding.id,
                version: 1,
                lines: [
                  {
                    line_id: e.editable.bulkCoding.lineIds[0],
                    field_values: [{ field_id: e.fieldId, svc_id: v.svc_id }],
                  },
                ],
              },
            ],
          },
        },
      ];
    case 'POST /internal/v1/accounting/records/{record_id}/lines/{line_id}/split':
      return [
        {
          body: {
            version: 1,
            parts: [{ amount: { amount: 1, currency: 'USD' } }, { amount: { amount: 3, currency: 'USD' } }],
          },
        },
      ];
    case 'POST /internal/v1/accounting/records/{record_id}/lines/merge':
      return [{ body: { version: 1, line_ids: e.editable.merge.lineIds } }];
    case 'PUT /internal/v1/accounting/export-mapping':
      return [{ body: { account_field_id: e.fieldId } }];
    case 'PUT /internal/v1/accounting/required-coding':
      return [{ body: { field_ids: [e.fieldId] } }];
    case 'POST /internal/v1/accounting/suggestions':
      return [{ body: { accounting_record_ids: [e.recordId] } }];
    case 'POST /internal/v1/accounting/records/{record_id}/suggestions/accept':
      return [{ body: { version: 1 } }];
    case 'PUT /internal/v1/accounting/review-settings':
      // Off: a write all the same, and the estate's later ingestions stay in PREPARE as the other tests expect.
      return [{ body: { auto_submit: false } }];
    case 'GET /internal/v1/accounting/records':
      return [{}, { query: { cursor: e.cursors.search } }];
    case 'GET /internal/v1/accounting/records/allowed-moves':
      return [{ query: { ids: [e.recordId] } }];
    case 'GET /internal/v1/fields/{field_id}/values/search':
      return [{ query: { q: 'Sales' } }];
    case 'POST /internal/v1/clients':
      // A scope the estate's client holds: a client grants only scopes it has.
      return [{ body: { scopes: ['fields.write'] } }];
    case 'POST /internal/v1/clients/{client_id}/rotate-secret':
      return [{ body: { overlap_seconds: 60 } }];
    case 'PATCH /internal/v1/clients/{client_id}':
      return [{ body: { scopes: ['fields.write'] } }];
    case 'POST /v3/accounting/integration':
      // The ACTIVE integration's vendor and vendor account: the reference's idempotent create answers it (200).
      return [{ body: { vendor: e.integration.vendor, vendor_account_id: e.integration.vendorAccountId } }];
    case 'GET /internal/v1/integrations':
      return [{}, { query: { cursor: e.cursors.integrations } }];
    case 'POST /v1/webhooks':
      return [{ body: { url: 'https://erp.example.com/mine', event_types: ['field_values.changed'] } }];
    case 'GET /v1/webhooks':
      return [{}, { query: { cursor: e.cursors.webhooks } }];
    case 'GET /v1/events':
      return [{}, { query: { cursor: e.cursors.events } }];
    case 'PUT /v1/webhooks/{webhook_id}':
      return [{ body: { url: 'https://attacker.example.com/', status: 'DISABLED' } }];
    case 'POST /v1/webhooks/{webhook_id}/secret/rotate':
      return [{ body: { previous_expires_in_seconds: 60 } }];
    case 'POST /v1/webhooks/{webhook_id}/redeliver':
      return [{ body: { event_id: e.webhook.eventId } }, { body: { since: '2000-01-01T00:00:00Z' } }];
    case 'GET /v1/webhooks/{webhook_id}/attempts':
      return [{ query: { event_id: e.webhook.eventId } }];
    case 'POST /v1/webhooks/{webhook_id}/test':
      return [{ body: {} }];
    case 'POST /internal/v1/accounting/coding-rules':
      return [{ body: { name: 'mine', conditions: { source_types: ['BILL'] }, actions: { field_values: [spare] } } }];
    case 'GET /internal/v1/accounting/coding-rules':
      return [{}, { query: { cursor: e.cursors.codingRules } }];
    case 'PATCH /internal/v1/accounting/coding-rules/{rule_id}':
      return [{ body: { version: 1, name: 'taken over', enabled: false } }];
    case 'POST /internal/v1/accounting/coding-rules/preview':
      return [{ body: { rule: { conditions: { source_types: ['CARD'] }, actions: { field_values: [spare] } } } }];
    case 'POST /internal/v1/accounting/coding-rules/apply':
      // Records first: the estate's rules may be broken by then (the value writes come before in the table).
      return [{ body: { accounting_record_ids: [e.recordId] } }, { body: { rule_ids: [e.ruleId] } }];
    default:
      return [{}];
  }
}

/** Operations that take no id, batch item or cursor: nothing in them can name another account's object. */
export const NAMES_NOTHING = new Set([
  'POST /v1/fields',
  'GET /internal/v1/accounting/required-coding',
  'GET /internal/v1/accounting/review-settings',
  'PUT /internal/v1/accounting/review-settings',
  'GET /internal/v1/accounting/receipt-policy',
  'PUT /internal/v1/accounting/receipt-policy',
  'GET /internal/v1/accounting/export-mapping',
  // An upload on its own: a new receipt of the caller's account, naming nothing.
  'POST /internal/v1/receipts',
  'GET /internal/v1/accounting/overview',
  'POST /internal/v1/clients',
  'POST /v3/accounting/integration',
  'POST /v1/webhooks',
]);

/**
 * Batches that answer each item on its own (200): another account's record is refused on its item as NOT_FOUND,
 * and the others are saved.
 */
export const PER_ITEM_OUTCOMES = new Set(['POST /internal/v1/accounting/records/coding']);

/** Writes that refuse an Idempotency-Key (their answer holds a secret that is never stored). */
export const REFUSES_IDEMPOTENCY_KEY = new Set([
  'POST /internal/v1/clients',
  'POST /internal/v1/clients/{client_id}/rotate-secret',
  'POST /internal/v1/accounting/exports',
]);

/** Write routes whose OpenAPI operation takes a body but that `requestsOf` does not know. */
export function bodiesMissing(table: RouteScopes[], e: Estate): string[] {
  return table.filter((r) => r.operation.requestBody && requestsOf(r, e)[0]!.body === undefined).map(routeName);
}

export async function send(
  api: ApiClient,
  route: RouteScopes,
  e: Estate,
  req: { body?: unknown; query?: Record<string, string | string[]> },
) {
  const keyed = route.method !== 'GET' && !REFUSES_IDEMPOTENCY_KEY.has(routeName(route));
  const headers: Record<string, string> = keyed ? { 'idempotency-key': randomUUID() } : {};
  return api.request(route.method, pathOf(route, e), { body: req.body, query: req.query, headers });
}
