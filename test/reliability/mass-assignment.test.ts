import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { expectErrorShape } from '../support/expect.js';
import { report } from '../support/reliability.js';
import { businessState } from '../support/reliability-state.js';
import { pathOf, requestsOf } from '../support/reliability-requests.js';
import { newEstate, routeName, routeTable } from '../support/reliability-routes.js';
import { storedKeys } from '../support/stored.js';

/** Fields the server manages: a client may never set them where the operation's schema does not take them. */
const SERVER_MANAGED = [
  'svc_id',
  'id',
  'field_id',
  'account_id',
  'updated_at',
  'created_at',
  'version',
  'review_status',
  'last_export_result',
  'line_items',
];

type Schema = {
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

const branches = (s: Schema): Schema[] => [
  s,
  ...[...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap(branches),
];
const propertiesOf = (s: Schema) =>
  Object.assign({}, ...branches(s).map((b) => b.properties ?? {})) as Record<string, Schema>;
const itemsOf = (s: Schema) => branches(s).find((b) => b.items)?.items ?? {};

/** Every object in `body` with its JSON pointer and the keys its schema takes there. */
function objectsOf(
  body: unknown,
  schema: Schema,
  pointer = '',
): { pointer: string; node: Record<string, unknown>; allowed: Set<string> }[] {
  if (Array.isArray(body)) return body.flatMap((v, i) => objectsOf(v, itemsOf(schema), `${pointer}/${i}`));
  if (body === null || typeof body !== 'object') return [];
  const props = propertiesOf(schema);
  const node = body as Record<string, unknown>;
  return [
    { pointer, node, allowed: new Set(Object.keys(props)) },
    ...Object.entries(node).flatMap(([k, v]) => objectsOf(v, props[k] ?? {}, `${pointer}/${k}`)),
  ];
}

/**
 * OWASP API3 (mass assignment), generated from the route table and each operation's request schema: every
 * server-managed field, put into every object of a valid body where the schema does not take it, is refused
 * with 400 INVALID_REQUEST naming exactly that field, and nothing is stored.
 */
describeEachDialect('mass assignment (OWASP API3)', (t) => {
  it('refuses server-managed fields anywhere in a request body with 400 naming them, and stores nothing', async () => {
    const e = await newEstate(t.ctx);
    const table = (await routeTable(t.ctx)).filter((r) => r.operation.requestBody);
    expect(table.length).toBeGreaterThanOrEqual(7);
    const before = await businessState(t.ctx.db, [e.api.accountId]);
    const keysBefore = await storedKeys(t.ctx, e.api.clientId);
    let tried = 0;
    for (const route of table) {
      const schema = route.operation.requestBody.content['application/json'].schema as Schema;
      const base = requestsOf(route, e)[0]!.body;
      expect(base, routeName(route)).toBeDefined();
      const places = objectsOf(base, schema);
      for (const [index, place] of places.entries()) {
        for (const key of SERVER_MANAGED.filter((k) => !place.allowed.has(k))) {
          const body = structuredClone(base) as Record<string, unknown>;
          const target = objectsOf(body, schema)[index]!.node;
          target[key] = key === 'version' ? 7 : key === 'line_items' ? [] : 'client-chosen';
          const res = await e.api.request(route.method, pathOf(route, e), {
            body,
            headers: { 'idempotency-key': randomUUID() },
          });
          tried++;
          const label = { route: routeName(route), at: `${place.pointer}/${key}`, status: res.status };
          expect(label).toEqual({ ...label, status: 400 });
          expectErrorShape(res, 'INVALID_REQUEST');
          // One problem: the field itself, or (where a union cannot tell its branches apart) the union holding it.
          const at = `${place.pointer}/${key}`;
          const holds = (path: string) => at === path || at.startsWith(`${path}/`);
          expect(res.body.details.errors).toEqual([{ path: expect.toSatisfy(holds), message: expect.any(String) }]);
        }
      }
    }
    expect(await businessState(t.ctx.db, [e.api.accountId])).toEqual(before);
    expect(await storedKeys(t.ctx, e.api.clientId)).toEqual(keysBefore);
    report(`mass-assignment [${t.dialect}]`, { routes: table.length, requests: tried });
  });
});
