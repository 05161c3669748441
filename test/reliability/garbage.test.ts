import fc from 'fast-check';
import { expect, it, vi } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { expectErrorShape } from '../support/expect.js';
import { report } from '../support/reliability.js';
import { fuzzOperations, GARBAGE_RUNS, GARBAGE_TIMEOUT_MS } from '../support/reliability-fuzz.js';
import { businessState } from '../support/reliability-state.js';
import { encode, garbageRequests, headerSafe, urlOf, type GarbageRequest } from '../support/reliability-garbage.js';
import { newEstate } from '../support/reliability-routes.js';

/**
 * The authenticated operations are fuzzed in two shards, this file and garbage.shard2.test.ts, which run side by side
 * (GARBAGE_RUNS inputs per operation; the ceiling, for a hang, passed 300 s with the machine at a load of 19).
 */
const RUNS = GARBAGE_RUNS;
vi.setConfig({ testTimeout: GARBAGE_TIMEOUT_MS });
const BODY_LIMIT = 65_536;

const headersOf = (req: GarbageRequest, token?: string) => {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (req.contentType) headers['content-type'] = req.contentType;
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = headerSafe(req.idempotencyKey);
  return headers;
};

/**
 * Property-based fuzzing (fast-check) of every operation, from its schema and beyond it. Never a 5xx; every
 * 4xx in the error shape with the request id; a rejected request changes no stored row.
 */
describeEachDialect(
  'garbage (fast-check)',
  (t) => {
    it('answers every garbage request of the authenticated operations (first of two shards) below 500, in the error shape, changing nothing', () =>
      fuzzOperations(t, RUNS, 0, 2));

    it('answers the inputs the fuzzer found 500s or foreign shapes for with 400 INVALID_REQUEST', async () => {
      const e = await newEstate(t.ctx);
      const deep = (n: number) => `{"items":${'['.repeat(n)}${']'.repeat(n)}}`;
      const cases = [
        { method: 'GET' as const, url: `/v1/fields/${'x'.repeat(600)}`, path: '/params' },
        // A route that takes no body reads 1 KiB of one (http/body-limits.ts): 413, the rest never parsed.
        { method: 'DELETE' as const, url: `/v1/fields/${e.fieldId}`, payload: deep(20_000), status: 413 },
        { method: 'DELETE' as const, url: '/v1/fields//values', payload: deep(20_000), path: '' },
        { method: 'PUT' as const, url: '/v1/fields/%00', payload: '{"name":"n"}', path: '/params/id' },
        {
          method: 'POST' as const,
          url: `/v1/fields/${e.fieldId}/values`,
          payload: '{"items":[{"value":"a\\u0000b"}]}',
          path: '/items/0/value',
        },
        // A lone surrogate: valid JSON, not Unicode text (SQLite would keep bytes that are not UTF-8).
        {
          method: 'POST' as const,
          url: `/v1/fields/${e.fieldId}/values`,
          payload: '{"items":[{"value":"ok"},{"value":"a\\ud800b","remote_id":"\\udc00"}]}',
          path: '/items/1/value',
        },
        { method: 'PUT' as const, url: `/v1/fields/${e.fieldId}`, payload: '{"name":"\\udfff"}', path: '/name' },
      ];
      const before = await businessState(t.ctx.db, [e.api.accountId]);
      for (const c of cases) {
        const headers = {
          authorization: `Bearer ${e.api.token}`,
          'content-type': 'application/json',
          'idempotency-key': `k-${c.method}-${c.url.length}`,
        };
        const res = await t.ctx.app.inject({ method: c.method, url: c.url, headers, payload: c.payload });
        const status = 'status' in c ? c.status : 400;
        expect({ url: c.url.slice(0, 40), status: res.statusCode }).toEqual({ url: c.url.slice(0, 40), status });
        if (status === 413) {
          expectErrorShape({ status, body: res.json(), headers: res.headers }, 'PAYLOAD_TOO_LARGE');
          expect(res.json().details).toEqual({ limit_bytes: 1024 });
          continue;
        }
        expectErrorShape({ status: 400, body: res.json(), headers: res.headers }, 'INVALID_REQUEST');
        expect(res.json().details.errors.map((p: { path: string }) => p.path)).toContain('path' in c ? c.path : '');
        expect(res.body).not.toContain('x'.repeat(600));
      }
      expect(await businessState(t.ctx.db, [e.api.accountId])).toEqual(before);
    });

    it('answers garbage to the token endpoint in the OAuth error shape and to public endpoints below 500', async () => {
      const creds = await t.ctx.newClient(['fields.read']);
      const base = { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret };
      let tried = 0;
      const routes = [
        { method: 'POST' as const, path: '/oauth2/token', base },
        ...['/healthz', '/readyz', '/metrics', '/openapi.json'].map((path) => ({
          method: 'GET' as const,
          path,
          base: undefined,
        })),
      ];
      for (const route of routes) {
        const op = {
          path: route.path,
          pathWithGarbage: (g: string) => `${route.path}/${encode(g)}`,
          queryNames: ['scope', 'grant_type'],
          base: route.base,
        };
        await fc.assert(
          fc.asyncProperty(garbageRequests(op), async (req) => {
            tried++;
            const res = await t.ctx.app.inject({
              method: route.method,
              url: urlOf(req),
              headers: headersOf(req),
              payload: req.payload,
            });
            expect({ path: route.path, status: res.statusCode }).toEqual({
              path: route.path,
              status: expect.toSatisfy((s: number) => s < 500),
            });
            if (res.statusCode < 400) return;
            const body = res.json();
            // The token endpoint answers in OAuth's shape; an unknown path or a too large body in the API's.
            if (route.path === '/oauth2/token' && req.path === route.path && res.statusCode !== 413) {
              expect(body).toEqual({ error: expect.any(String), error_description: expect.any(String) });
            } else expectErrorShape({ status: res.statusCode, body, headers: res.headers });
          }),
          { numRuns: Math.ceil(RUNS / 2), endOnFailure: true },
        );
      }
      report(`garbage public [${t.dialect}]`, { operations: routes.length, inputs: tried });
    });
  },
  { BODY_LIMIT_BYTES: String(BODY_LIMIT) },
);
