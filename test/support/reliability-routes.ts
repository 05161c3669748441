import { randomUUID } from 'node:crypto';
import { ADMIN } from './accounting.js';
import type { Api } from './api.js';
import type { TestContext } from './context.js';
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
  fieldId: string;
  value: { svc_id: string; remote_id: string; value_id: string };
  recordId: string;
  /** Records under review, one for each editing operation (each changes its record's version). */
  editable: { coding: EditableRecord; split: EditableRecord; merge: EditableRecord };
  cursors: { fields: string; values: string; records: string; search: string };
}

interface EditableRecord {
  id: string;
  lineIds: string[];
}

export async function newEstate(ctx: TestContext): Promise<Estate> {
  const api = await ctx.as([...ADMIN]);
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
  const cursor = async (url: string, query: Record<string, string>) => {
    const res = await api.get(url, { limit: '1', ...query });
    if (!res.body.next_cursor) throw new Error(`no cursor from ${url}: ${res.text}`);
    return res.body.next_cursor as string;
  };
  return {
    api,
    fieldId,
    value,
    recordId: records[0].id,
    editable: { coding, split, merge },
    cursors: {
      fields: await cursor('/v1/fields', {}),
      values: await cursor(`/v1/fields/${fieldId}/values`, {}),
      records: await cursor('/v3/accounting/records', {}),
      search: await cursor('/internal/v1/accounting/records', {}),
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
    default:
      return [{}];
  }
}

/** Operations that take no id, batch item or cursor: nothing in them can name another account's object. */
export const NAMES_NOTHING = new Set(['POST /v1/fields', 'GET /internal/v1/accounting/required-coding']);

/** Write routes whose OpenAPI operation takes a body but that `requestsOf` does not know. */
export function bodiesMissing(table: RouteScopes[], e: Estate): string[] {
  return table.filter((r) => r.operation.requestBody && requestsOf(r, e)[0]!.body === undefined).map(routeName);
}

export async function send(
  api: Api,
  route: RouteScopes,
  e: Estate,
  req: { body?: unknown; query?: Record<string, string | string[]> },
) {
  const headers: Record<string, string> = route.method === 'GET' ? {} : { 'idempotency-key': randomUUID() };
  return api.request(route.method, pathOf(route, e), { body: req.body, query: req.query, headers });
}
