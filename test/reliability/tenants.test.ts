import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { expectErrorShape } from '../support/expect.js';
import { report } from '../support/reliability.js';
import { bodiesMissing, NAMES_NOTHING, PER_ITEM_OUTCOMES, requestsOf, send } from '../support/reliability-requests.js';
import { newEstate, routeName, routeTable } from '../support/reliability-routes.js';
import { businessState } from '../support/reliability-state.js';
import { signedIn } from '../support/oauth.js';
import type { RouteScopes } from '../support/routes.js';

/**
 * Requests that read before they write, edits of a record's lines before the values they code change (a disabled
 * value codes nothing), and the deletes last, so that each one finds its target.
 */
const rank = (r: RouteScopes) =>
  // a file export reads the ready record, before export results take it to EXPORTED
  r.method === 'GET' || r.path === '/internal/v1/accounting/exports'
    ? 0
    : /\/accounting\/records\/\{record_id\}\/(coding|lines\/)/.test(r.path) ||
        // a test event needs its endpoint enabled: before the PUT that disables it
        r.path === '/v1/webhooks/{webhook_id}/test'
      ? 1
      : r.path.endsWith('/review-status')
        ? 3
        : r.method === 'DELETE'
          ? r.path === '/v1/fields/{id}'
            ? 5
            : 4
          : 2;

/**
 * OWASP API1 (broken object level authorization), generated from the OpenAPI route table: account B, with
 * every scope, aims each operation at account A's objects (path ids, batch items, id filters, cursors).
 */
describeEachDialect('other tenants (OWASP API1)', (t) => {
  it("answers 404, an empty list or 400 INVALID_CURSOR to every operation on another account's objects, and changes nothing", async () => {
    const a = await newEstate(t.ctx);
    const b = await newEstate(t.ctx);
    const table = (await routeTable(t.ctx)).sort((x, y) => rank(x) - rank(y));
    expect(bodiesMissing(table, a)).toEqual([]);
    const before = await businessState(t.ctx.db, [a.api.accountId, b.api.accountId]);
    const aIds = new Set([a.fieldId, a.value.svc_id, a.recordId]);
    let tried = 0;
    for (const route of table.filter((r) => !NAMES_NOTHING.has(routeName(r)))) {
      for (const req of requestsOf(route, a)) {
        const res = await send(b.api, route, a, req);
        tried++;
        const label = { route: routeName(route), req, status: res.status };
        if (req.query?.cursor && !route.path.includes('{')) {
          expect(label).toEqual({ ...label, status: 400 });
          expectErrorShape(res, 'INVALID_CURSOR');
        } else if (route.method === 'GET' && !route.path.includes('{')) {
          expect(label).toEqual({ ...label, status: 200 });
          expect(res.body.items.filter((i: any) => aIds.has(i.svc_id ?? i.id))).toEqual([]);
          if ('total_count' in res.body) expect(res.body.total_count).toBe(0);
        } else if (PER_ITEM_OUTCOMES.has(routeName(route))) {
          expect(label).toEqual({ ...label, status: 200 });
          expect(res.body.items.map((i: any) => [i.status, i.error.error_code])).toEqual(
            res.body.items.map(() => ['REFUSED', 'NOT_FOUND']),
          );
          expect(JSON.stringify(res.body)).not.toContain(a.api.accountId);
        } else {
          expect(label).toEqual({ ...label, status: 404 });
          expectErrorShape(res, 'NOT_FOUND');
          expect(JSON.stringify(res.body)).not.toContain(a.api.accountId);
        }
      }
    }
    expect(await businessState(t.ctx.db, [a.api.accountId, b.api.accountId])).toEqual(before);

    // The same requests on B's own objects succeed: the 404s above come from the account, not the request.
    let own = 0;
    for (const route of table) {
      const req = requestsOf(route, b).find((r) => !r.query?.cursor) ?? requestsOf(route, b)[0]!;
      const res = await send(b.api, route, b, req);
      own++;
      expect({ route: routeName(route), status: res.status, body: res.status === 200 ? null : res.body }).toEqual({
        route: routeName(route),
        status: 200,
        body: null,
      });
    }
    report(`tenants [${t.dialect}]`, { routes: table.length, foreign_requests: tried, own_requests: own });
  });

  it("a console user of another account (an admin, by session, with the CSRF token) reaches none of A's objects either", async () => {
    const a = await newEstate(t.ctx);
    const b = await newEstate(t.ctx);
    const browser = await signedIn(t.ctx.app, t.ctx.db, 'ACCOUNT_ADMIN', b.api.accountId);
    const table = (await routeTable(t.ctx)).sort((x, y) => rank(x) - rank(y));
    const before = await businessState(t.ctx.db, [a.api.accountId, b.api.accountId]);
    const aIds = new Set([a.fieldId, a.value.svc_id, a.recordId]);
    let tried = 0;
    for (const route of table.filter((r) => !NAMES_NOTHING.has(routeName(r)))) {
      for (const req of requestsOf(route, a)) {
        const res = await send(browser, route, a, req);
        tried++;
        const label = { route: routeName(route), req, status: res.status };
        if (req.query?.cursor && !route.path.includes('{')) {
          expect(label).toEqual({ ...label, status: 400 });
          expectErrorShape(res, 'INVALID_CURSOR');
        } else if (route.method === 'GET' && !route.path.includes('{')) {
          expect(label).toEqual({ ...label, status: 200 });
          expect(res.body.items.filter((i: any) => aIds.has(i.svc_id ?? i.id))).toEqual([]);
        } else if (PER_ITEM_OUTCOMES.has(routeName(route))) {
          expect(label).toEqual({ ...label, status: 200 });
          expect(res.body.items.map((i: any) => [i.status, i.error.error_code])).toEqual(
            res.body.items.map(() => ['REFUSED', 'NOT_FOUND']),
          );
          expect(JSON.stringify(res.body)).not.toContain(a.api.accountId);
        } else {
          expect(label).toEqual({ ...label, status: 404 });
          expectErrorShape(res, 'NOT_FOUND');
          expect(JSON.stringify(res.body)).not.toContain(a.api.accountId);
        }
      }
    }
    expect(await businessState(t.ctx.db, [a.api.accountId, b.api.accountId])).toEqual(before);
    report(`tenants by session [${t.dialect}]`, { routes: table.length, foreign_requests: tried });
  });
});
