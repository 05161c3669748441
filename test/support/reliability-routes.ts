import { randomUUID } from 'node:crypto';
import { ADMIN } from './accounting.js';
import type { Api, ApiClient } from './api.js';
import type { TestContext } from './context.js';
import { disconnectUrl, INTEGRATION, newVendor } from './integrations.js';
import { approve, authorizeParams, newApp, pkce, signedIn } from './oauth.js';
import { routeScopes, type RouteScopes } from './routes.js';

/** Every authenticated operation of the app's OpenAPI document: a new route joins every loop by itself. */
export async function routeTable(ctx: TestContext): Promise<RouteScopes[]> {
  const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  return routeScopes(doc);
}

export const routeName = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** Objects of one account, made through the API, that other tests aim at. */
export interface Estate {
  api: Api;
  /** A second API client of the account, for the operations on clients (revoking the first would end the test). */
  spareClientId: string;
  fieldId: string;
  value: { svc_id: string; remote_id: string; value_id: string };
  recordId: string;
  /** Records under review, one for each editing operation (each changes its record's version). */
  editable: { coding: EditableRecord; split: EditableRecord; merge: EditableRecord };
  cursors: {
    fields: string;
    values: string;
    records: string;
    search: string;
    integrations: string;
    webhooks: string;
    events: string;
  };
  /** The ACTIVE one of the account's two integrations (the other DISABLED), with its vendor and vendor account. */
  integration: { id: string; vendor: string; vendorAccountId: string };
  /** The first of the account's two webhook endpoints, and an event of a type it takes. */
  webhook: { id: string; eventId: string };
  /** A partner app an admin of the account connected. */
  connectedAppId: string;
}

interface EditableRecord {
  id: string;
  lineIds: string[];
}

export async function newEstate(ctx: TestContext): Promise<Estate> {
  const api = await ctx.as([
    ...ADMIN,
    'account.admin',
    'accounting.integration.write',
    'webhooks.write',
    'events.read',
    'audit.read',
  ]);
  const spare = await ctx.newClient(['fields.read'], api.accountId);
  const fieldId = await api.newField({ name: 'One' });
  await api.newField({ name: 'Two' });
  const [value] = await api.newValues(fieldId, [
    { value: 'Sales', remote_id: 'r-1', value_id: 'q-1' },
    { value: 'Ops', remote_id: 'r-2', value_id: 'q-2' },
  ]);
  const records = await api.newRecords(
    [0, 1].map(() => ({
      amount: { amount: 10, currency: 'USD' },
      review_status: 'READY_FOR_EXPORT',
      lines: [{ amount: { amount: 10, currency: 'USD' }, field_values: [{ field_id: fieldId, svc_id: value.svc_id }] }],
    })),
  );
  const underReview = await api.post('/internal/v1/accounting/records', {
    items: [0, 1, 2].map(() => ({
      type: 'CARD_EXPENSE_POST',
      amount: { amount: 10, currency: 'USD' },
      posted_at: '2026-06-11T09:09:05.840865Z',
      review_status: 'REVIEW',
      lines: [{ amount: { amount: 4, currency: 'USD' } }, { amount: { amount: 6, currency: 'USD' } }],
    })),
  });
  if (underReview.status !== 200) throw new Error(`estate records under review: ${underReview.text}`);
  const [coding, split, merge] = underReview.body.items.map((r: any) => ({
    id: r.id,
    lineIds: r.line_items.slice(0, 2).map((l: any) => l.id),
  }));
  // Two integrations (the first disconnected), so that their list has a second page.
  const vendor = await newVendor(ctx.db);
  const integrationIds: string[] = [];
  for (const vendorAccountId of ['past', 'current']) {
    const made = await api.post(INTEGRATION, { vendor, vendor_account_id: vendorAccountId });
    if (made.status !== 200) throw new Error(`estate integration: ${made.text}`);
    integrationIds.push(made.body.integration_id);
    if (vendorAccountId === 'past') await api.post(disconnectUrl(made.body.integration_id), undefined);
  }
  // Two webhook endpoints (so that their list has a second page), with https targets no test sends to.
  const webhookIds: string[] = [];
  for (const path of ['one', 'two']) {
    const made = await api.post('/v1/webhooks', {
      url: `https://erp.example.com/${path}`,
      event_types: ['accounting_record.ready_for_export'],
    });
    if (made.status !== 200) throw new Error(`estate webhook: ${made.text}`);
    webhookIds.push(made.body.id);
  }
  // A partner app connected by an admin of the account, as the console's consent does.
  const partner = await newApp(ctx.db);
  const admin = await signedIn(ctx.app, ctx.db, 'ACCOUNT_ADMIN', api.accountId);
  await approve(admin, authorizeParams(partner.id, pkce().challenge));
  const cursor = async (url: string, query: Record<string, string>) => {
    const res = await api.get(url, { limit: '1', ...query });
    if (!res.body.next_cursor) throw new Error(`no cursor from ${url}: ${res.text}`);
    return res.body.next_cursor as string;
  };
  return {
    api,
    spareClientId: spare.client_id,
    fieldId,
    value,
    recordId: records[0].id,
    editable: { coding, split, merge },
    cursors: {
      fields: await cursor('/v1/fields', {}),
      values: await cursor(`/v1/fields/${fieldId}/values`, {}),
      records: await cursor('/v3/accounting/records', {}),
      search: await cursor('/internal/v1/accounting/records', {}),
      integrations: await cursor('/internal/v1/integrations', {}),
      webhooks: await cursor('/v1/webhooks', {}),
      events: await cursor('/v1/events', {}),
    },
    integration: { id: integrationIds[1]!, vendor, vendorAccountId: 'current' },
    connectedAppId: partner.id,
    webhook: {
      id: webhookIds[0]!,
      eventId: (await api.get('/v1/events', { limit: '100' })).body.items.find(
        (event: any) => event.type === 'accounting_record.ready_for_export',
      ).id,
    },
  };
}

/** The path with its parameters naming the estate's objects. */
export function pathOf(route: RouteScopes, e: Estate): string {
  const edited = route.path.endsWith('/coding')
    ? e.editable.coding
    : route.path.endsWith('/split')
      ? e.editable.split
      : route.path.endsWith('/merge')
        ? e.editable.merge
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
  switch (routeName(route)) {
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
    case 'PUT /internal/v1/accounting/required-coding':
      return [{ body: { field_ids: [e.fieldId] } }];
    case 'GET /internal/v1/accounting/records':
      return [{}, { query: { cursor: e.cursors.search } }];
    case 'GET /internal/v1/fields/{field_id}/values/search':
      return [{ query: { q: 'Sales' } }];
    case 'POST /internal/v1/clients':
      // A scope the estate's client holds: a client grants only scopes it has.
      return [{ body: { scopes: ['fields.write'] } }];
    case 'POST /internal/v1/clients/{client_id}/rotate-secret':
      return [{ body: { overlap_seconds: 60 } }];
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
    default:
      return [{}];
  }
}

/** Operations that take no id, batch item or cursor: nothing in them can name another account's object. */
export const NAMES_NOTHING = new Set([
  'POST /v1/fields',
  'GET /internal/v1/accounting/required-coding',
  'GET /internal/v1/accounting/overview',
  'POST /internal/v1/clients',
  'POST /v3/accounting/integration',
  'POST /v1/webhooks',
]);

/** Writes that refuse an Idempotency-Key (their answer holds a secret that is never stored). */
export const REFUSES_IDEMPOTENCY_KEY = new Set([
  'POST /internal/v1/clients',
  'POST /internal/v1/clients/{client_id}/rotate-secret',
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
