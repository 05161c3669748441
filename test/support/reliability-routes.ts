import { randomUUID } from 'node:crypto';
import type { Api, TestContext } from './context.js';
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
  cursors: { fields: string; values: string; records: string };
}

export async function newEstate(ctx: TestContext): Promise<Estate> {
  const api = await ctx.as([
    'fields.write',
    'field_values.write',
    'accounting.record.admin',
    'accounting.record.write',
  ]);
  const fields = [];
  for (const name of ['One', 'Two'])
    fields.push((await api.create('/v1/fields', { name, group: 'ACCOUNTING' })).body.svc_id);
  const fieldId = fields[0]!;
  const values = await api.create(`/v1/fields/${fieldId}/values`, {
    items: [
      { value: 'Sales', remote_id: 'r-1', value_id: 'q-1' },
      { value: 'Ops', remote_id: 'r-2', value_id: 'q-2' },
    ],
  });
  const value = values.body.items[0];
  const records = await api.post('/internal/v1/accounting/records', {
    items: [0, 1].map(() => ({
      type: 'CARD_EXPENSE_POST',
      amount: { amount: 10, currency: 'USD' },
      posted_at: '2026-06-11T09:09:05.840865Z',
      review_status: 'READY_FOR_EXPORT',
      lines: [{ amount: { amount: 10, currency: 'USD' }, field_values: [{ field_id: fieldId, svc_id: value.svc_id }] }],
    })),
  });
  if (records.status !== 200) throw new Error(`estate records: ${records.text}`);
  const cursor = async (url: string, query: Record<string, string>) => {
    const res = await api.get(url, { limit: '1', ...query });
    if (!res.body.next_cursor) throw new Error(`no cursor from ${url}: ${res.text}`);
    return res.body.next_cursor as string;
  };
  return {
    api,
    fieldId,
    value,
    recordId: records.body.items[0].id,
    cursors: {
      fields: await cursor('/v1/fields', {}),
      values: await cursor(`/v1/fields/${fieldId}/values`, {}),
      records: await cursor('/v3/accounting/records', {}),
    },
  };
}

/** The path with its parameters naming the estate's objects. */
export function pathOf(route: RouteScopes, e: Estate): string {
  const ids: Record<string, string> = {
    id: e.fieldId,
    field_id: e.fieldId,
    svc_id: e.value.svc_id,
    record_id: e.recordId,
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
    default:
      return [{}];
  }
}

/** Operations that take no id, batch item or cursor: nothing in them can name another account's object. */
export const NAMES_NOTHING = new Set(['POST /v1/fields']);

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
