import fc from 'fast-check';
import { expect } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import type { TestContext } from './context.js';
import { expectErrorShape } from './expect.js';
import { report } from './reliability.js';
import { businessState } from './reliability-state.js';
import { encode, garbageRequests, headerSafe, urlOf, type GarbageRequest } from './reliability-garbage.js';
import { pathOf, requestsOf } from './reliability-requests.js';
import { newEstate, routeName, routeTable } from './reliability-routes.js';
import { knob } from './knobs.js';

/**
 * Inputs per authenticated operation (each operation is one route of the OpenAPI table), half as many per token or
 * public endpoint: 100 in CI (fast-check's own default; the suite samples), `npm run soak` sets GARBAGE_RUNS=2200
 * (it explores). At 200 the two shards were a tenth of the suite's time.
 */
export const GARBAGE_RUNS = knob('GARBAGE_RUNS', 100);
/** A ceiling for a hang, not a bound: 900 s a test in CI, else 4.5 s per input of each operation. */
export const GARBAGE_TIMEOUT_MS = Math.max(900_000, GARBAGE_RUNS * 4500);

const headersOf = (req: GarbageRequest, token?: string) => {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (req.contentType) headers['content-type'] = req.contentType;
  if (req.idempotencyKey !== undefined) headers['idempotency-key'] = headerSafe(req.idempotencyKey);
  return headers;
};

/**
 * Property-based fuzzing (fast-check) of the authenticated operations of one shard (`shard` of `shards`, by their
 * place in the OpenAPI table), `runs` inputs each: never a 5xx; every 4xx in the error shape with the request id; a
 * rejected request changes no stored row. The shards run in files of their own, side by side.
 */
export async function fuzzOperations(
  t: { readonly ctx: TestContext; readonly dialect: DialectName },
  runs: number,
  shard: number,
  shards: number,
): Promise<void> {
  const RUNS = runs;

  const e = await newEstate(t.ctx);
  const table = (await routeTable(t.ctx)).filter((_, i) => i % shards === shard);
  const cursors: Record<string, string> = {
    '/v1/fields': e.cursors.fields,
    '/v1/fields/{field_id}/values': e.cursors.values,
    '/v3/accounting/records': e.cursors.records,
  };
  const tried: Record<string, number> = {};
  const statuses: Record<number, number> = {};
  let state = await businessState(t.ctx.db, [e.api.accountId]);
  for (const route of table) {
    const name = routeName(route);
    const op = {
      path: pathOf(route, e),
      pathWithGarbage: (g: string) =>
        pathOf(route, { ...e, fieldId: encode(g), recordId: encode(g), value: { ...e.value, svc_id: encode(g) } }),
      queryNames: ((route.operation.parameters ?? []) as { in: string; name: string }[])
        .filter((p) => p.in === 'query')
        .map((p) => p.name),
      base: requestsOf(route, e)[0]!.body,
      cursor: cursors[route.path],
    };
    tried[name] = 0;
    await fc.assert(
      fc.asyncProperty(garbageRequests(op), async (req) => {
        tried[name]!++;
        const res = await t.ctx.app.inject({
          method: route.method,
          url: urlOf(req),
          headers: headersOf(req, e.api.token!),
          payload: req.payload,
        });
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        const body = res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : res.body;
        expect({ name, status: res.statusCode }).toEqual({
          name,
          status: expect.toSatisfy((s: number) => s < 500),
        });
        if (res.statusCode >= 400) {
          // A replay is the first answer as stored, whose request_id is the first request's (docs/design.md); the
          // X-Request-Id header is the replay's own.
          const replayed = res.headers['idempotent-replayed'] === 'true';
          const headers = replayed ? { ...res.headers, 'x-request-id': body?.request_id } : res.headers;
          expectErrorShape({ status: res.statusCode, body, headers });
        }
        if (route.method === 'GET') return;
        const now = await businessState(t.ctx.db, [e.api.accountId]);
        if (res.statusCode >= 400) expect(now).toEqual(state);
        state = now;
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  }
  const total = Object.values(tried).reduce((a, b) => a + b, 0);
  report(`garbage ${shard + 1}/${shards} [${t.dialect}]`, {
    operations: table.length,
    inputs: total,
    ...Object.fromEntries(Object.entries(statuses).map(([s, n]) => [`status_${s}`, n])),
  });
  expect(total).toBe(RUNS * table.length);
}
