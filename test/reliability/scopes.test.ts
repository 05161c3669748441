import { expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/modules/auth/scopes.js';
import { ROLE_SCOPES, ROLES } from '../../src/modules/users/roles.js';
import { describeEachDialect } from '../support/context.js';
import { expectErrorShape } from '../support/expect.js';
import { report } from '../support/reliability.js';
import { routeName, routeTable } from '../support/reliability-routes.js';
import { signedIn } from '../support/oauth.js';
import { sampleRequest, type RouteScopes } from '../support/routes.js';

/** The scopes SPEC.md and CONVENTIONS.md give each operation; the generated table may only add routes. */
const SPEC_SCOPES = [
  'GET /v1/fields/{field_id}/values field_values.read field_values.write',
  'POST /v1/fields/{field_id}/values field_values.write',
  'PUT /v1/fields/{field_id}/values field_values.write',
  'DELETE /v1/fields/{field_id}/values fields.write',
  'GET /v1/fields/{field_id}/values/{svc_id} field_values.read field_values.write',
  'GET /v3/accounting/records/{record_id} accounting.record.read accounting.record.write',
  'GET /v3/accounting/records accounting.record.read accounting.record.write',
  'POST /v3/accounting/records/export-results accounting.record.write',
  'POST /v3/accounting/integration accounting.integration.write',
  'POST /v3/accounting/integration/{integration_id}/disconnect accounting.integration.write',
  'POST /v3/accounting/integration/{integration_id}/reactivate accounting.integration.write',
  'POST /internal/v1/accounting/records accounting.record.admin',
  'POST /internal/v1/accounting/records/{record_id}/review-status accounting.record.admin',
];

/**
 * What an allowed request of `sampleRequest` may be answered: a JSON body `{}` that the operation refuses, or an id
 * it does not know. An upload that takes a file's bytes (any media type, recognised by its bytes) answers it 415.
 */
const allowedAnswers = (route: RouteScopes): number[] => {
  const content: Record<string, unknown> | undefined = route.operation.requestBody?.content;
  // An upload declares no JSON body (its bytes are parsed by the route) and lists 415 among its answers.
  const takesFiles = !('application/json' in (content ?? {})) && '415' in (route.operation.responses ?? {});
  return takesFiles ? [200, 400, 404, 415] : [200, 400, 404];
};

/** OWASP API5 (broken function level authorization), generated from the route table: every route × every scope. */
describeEachDialect('scopes (OWASP API5)', (t) => {
  it('allows each operation exactly for the scopes its OpenAPI security lists, and none without a token', async () => {
    const table = await routeTable(t.ctx);
    expect(table.map((r) => `${routeName(r)} ${r.scopes.join(' ')}`)).toEqual(expect.arrayContaining(SPEC_SCOPES));
    let tried = 0;
    const anonymous = await t.ctx.as(['fields.read']);
    for (const route of table) {
      const res = await anonymous.request(route.method, sampleRequest(route)[0], { headers: { authorization: '' } });
      expect({ route: routeName(route), status: res.status }).toEqual({ route: routeName(route), status: 401 });
      expectErrorShape(res, 'UNAUTHORIZED');
      tried++;
    }
    for (const scope of ALL_SCOPES) {
      const api = await t.ctx.as([scope]);
      for (const route of table) {
        const res = await api.request(route.method, ...sampleRequest(route));
        tried++;
        const allowed = route.scopes.includes(scope);
        const outcome = { scope, route: routeName(route), forbidden: res.status === 403 };
        expect(outcome).toEqual({ ...outcome, forbidden: !allowed });
        if (!allowed) {
          expectErrorShape(res, 'FORBIDDEN');
          expect(res.headers['www-authenticate']).toBe(
            `Bearer realm="svc", error="insufficient_scope", scope="${route.scopes.join(' ')}"`,
          );
        } else expect(allowedAnswers(route), `${routeName(route)} answered ${res.status}`).toContain(res.status);
      }
    }
    // Every scope at once is forbidden nothing.
    const all = await t.ctx.as(ALL_SCOPES);
    for (const route of table) expect((await all.request(route.method, ...sampleRequest(route))).status).not.toBe(403);
    report(`scopes [${t.dialect}]`, {
      routes: table.length,
      scopes: ALL_SCOPES.length,
      requests: tried + table.length,
    });
  });

  it("allows each console role exactly the operations its role's scopes reach, by session; 403 names the role", async () => {
    const table = await routeTable(t.ctx);
    let tried = 0;
    for (const role of ROLES) {
      const browser = await signedIn(t.ctx.app, t.ctx.db, role);
      const held: readonly string[] = ROLE_SCOPES[role];
      for (const route of table) {
        const [url, options] = sampleRequest(route);
        const res = await browser.request(route.method, url, options);
        tried++;
        const allowed = route.scopes.some((scope) => held.includes(scope));
        const outcome = { role, route: routeName(route), forbidden: res.status === 403 };
        expect(outcome).toEqual({ ...outcome, forbidden: !allowed });
        if (!allowed) {
          expectErrorShape(res, 'FORBIDDEN');
          expect(res.body.details).toEqual({ role, required_scopes: route.scopes });
        } else expect(allowedAnswers(route), `${routeName(route)} answered ${res.status}`).toContain(res.status);
      }
    }
    report(`scopes by role [${t.dialect}]`, { routes: table.length, roles: ROLES.length, requests: tried });
  });
});
