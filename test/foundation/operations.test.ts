import { Validator } from '@seriousme/openapi-schema-validator';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { isFieldsRoute, routeScopes } from '../support/routes.js';

describeEachDialect('operations endpoints', (t) => {
  const get = (url: string) => t.ctx.app.inject({ method: 'GET', url });

  it('serves /healthz and /readyz without a token', async () => {
    const health = await get('/healthz');
    expect([health.statusCode, health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await get('/readyz');
    expect([ready.statusCode, ready.json()]).toEqual([200, { status: 'ready' }]);
    expect(ready.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('counts requests in Prometheus text at /metrics, by route template and status', async () => {
    const api = await t.ctx.as(['fields.read']);
    await api.get('/v1/fields/extended_field_missing');
    const res = await get('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.body).toContain('# TYPE svc_http_requests_total counter');
    expect(res.body).toMatch(
      /^svc_http_requests_total\{method="GET",route="\/v1\/fields\/:id",status="404"\} [1-9]\d*$/m,
    );
    expect(res.body).toContain('# TYPE svc_http_request_duration_seconds histogram');
  });

  it('keeps /metrics for the bearer of METRICS_TOKEN when the operator sets one', async () => {
    const token = 'metrics-token-0123456789';
    const guarded = await t.ctx.secondApp({ METRICS_TOKEN: token });
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Bearer ${token}x`]) {
      const res = await guarded.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization ? { authorization } : {},
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error_code).toBe('UNAUTHORIZED');
    }
    const ok = await guarded.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('# TYPE svc_http_requests_total counter');
  });

  it('describes every operation and every parameter in the OpenAPI document', async () => {
    const doc = (await get('/openapi.json')).json();
    const missing: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(operations)) {
        if (!op.summary) missing.push(`${method} ${path}: summary`);
        if (!op.description) missing.push(`${method} ${path}: description`);
        for (const p of op.parameters ?? []) {
          if (!p.description && !p.schema?.description) missing.push(`${method} ${path}: ${p.in} ${p.name}`);
        }
      }
    }
    expect(missing).toEqual([]);
    const query = doc.paths['/v3/accounting/records'].get.parameters.find((p: any) => p.name === 'review_status');
    expect(query.schema.description ?? query.description).toContain('card and reimbursement records only');
  });

  it('publishes a valid OpenAPI 3.1 document with one security requirement per scope', async () => {
    const res = await get('/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);

    const fields = routeScopes(doc).filter(isFieldsRoute);
    expect(fields).toHaveLength(5);
    for (const route of fields) {
      expect(route.operation.security).toEqual(route.scopes.map((scope) => ({ OAuth2: [scope] })));
      expect(route.operation.responses['401']).toBeDefined();
      expect(route.operation.responses['403']).toBeDefined();
    }
    // every scope used is declared by the security scheme
    const declared = Object.keys(doc.components.securitySchemes.OAuth2.flows.clientCredentials.scopes);
    for (const route of routeScopes(doc)) for (const scope of route.scopes) expect(declared).toContain(scope);
    // public endpoints carry no security requirement
    for (const path of ['/healthz', '/readyz', '/metrics', '/oauth2/token']) {
      const item = doc.paths[path];
      expect(item).toBeDefined();
      for (const op of Object.values(item) as { security?: unknown }[]) expect(op.security).toBeUndefined();
    }
    const create = doc.paths['/v1/fields'].post;
    expect(create.parameters).toContainEqual(
      expect.objectContaining({ name: 'idempotency-key', in: 'header', required: true }),
    );
  });

  it('serves /docs as HTML whose assets all come from this server', async () => {
    const page = await get('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/')).toBe(true);
      expect((await get(asset)).statusCode).toBe(200);
    }
    const initializer = await get('/docs/static/swagger-initializer.js');
    expect(initializer.body).toContain('validatorUrl: null'); // no call to validator.swagger.io
    expect((await get('/docs/json')).json()).toEqual((await get('/openapi.json')).json());
  });
});
