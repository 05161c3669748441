import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { call, token, valueBatches } from '../lib/api.js';
import { svc, type Credentials, type Settings } from '../lib/context.js';
import { load, type LoadOptions } from '../lib/load.js';
import { serve } from '../lib/processes.js';

/** What the load needs of the database `prepare` filled. */
export interface Prepared {
  auth: Record<string, string>;
  /** `/v1/fields/<id>/values` of the field of `values` values */
  valuesPath: string;
  /** Paths of 1000 of its values, one each */
  valuePaths: string[];
  /** `/v1/fields/<id>/values` of an empty field that the mixed load's creates fill */
  mixedPath: string;
}

/** A scenario measured at both worker counts, on the floor's servers or on svc's. */
export interface Row {
  name: string;
  unit: string;
  on: 'floor' | 'svc';
  load(base: string): LoadOptions;
}

/**
 * The database, filled by one server (WORKERS=1, not measured): `values` values in one field (1000 per request,
 * 4 at a time), then `svc seed` of `records` records.
 */
export async function prepare(settings: Settings, env: Record<string, string>, creds: Credentials): Promise<Prepared> {
  const server = await serve([path.join(settings.root, 'dist/server.js')], { ...env, WORKERS: '1' }, settings.port);
  try {
    const bearer = await token(server.url, creds.client_id, creds.client_secret);
    const auth = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
    const newField = async (name: string): Promise<string> =>
      (
        await call<{ svc_id: string }>(`${server.url}/v1/fields`, {
          method: 'POST',
          token: bearer,
          body: { name, group: 'ACCOUNTING' },
          headers: { 'idempotency-key': randomUUID() },
        })
      ).svc_id;
    const valuesPath = `/v1/fields/${await newField('GL Account')}/values`;
    const mixedPath = `/v1/fields/${await newField('Mixed writes')}/values`;
    const bodies = valueBatches(Math.ceil(settings.values / 1000), auth, 'fill');
    let next = 0;
    const filled = await load({
      url: `${server.url}${valuesPath}`,
      method: 'POST',
      headers: auth,
      connections: Math.min(4, bodies.length),
      amount: bodies.length,
      setupRequest: (request) => ({ ...request, ...bodies[next++ % bodies.length] }),
    });
    if (filled.errors + filled.non2xx > 0) throw new Error(`scaling: ${filled.non2xx + filled.errors} creates failed`);
    const first = await call<{ items: { svc_id: string }[] }>(`${server.url}${valuesPath}?limit=1000`, {
      token: bearer,
    });
    svc(
      settings.root,
      ['seed', '--account', 'bench', '--records', String(settings.records), '--values', '200', '--into-existing'],
      env,
    );
    return { auth, valuesPath, valuePaths: first.items.map((v) => `${valuesPath}/${v.svc_id}`), mixedPath };
  } finally {
    await server.stop();
  }
}

/** The rows of every pass (made once: the mixed load's creates count on across passes). */
export function rows(data: Prepared): Row[] {
  // The mixed load's creates: new values (and keys) in every run of every pass, so that none is a replay or a clash.
  let made = 0;
  const run = randomUUID().slice(0, 8);
  // The floor first: every other row's verdict reads its ratio.
  const list: Row[] = [
    {
      name: 'floor: bare Fastify GET (50 connections)',
      unit: 'req/s',
      on: 'floor',
      load: (base) => ({ url: `${base}/` }),
    },
    {
      name: 'get one value (50 connections)',
      unit: 'req/s',
      on: 'svc',
      load: (base) => ({
        url: `${base}${data.valuePaths[0]}`,
        headers: data.auth,
        requests: data.valuePaths.map((p) => ({ path: p })),
      }),
    },
    // 10 connections, not the normal run's 1 for the query: one connection would leave all but one worker idle.
    {
      name: 'list values, limit 1000, first page (10 connections)',
      unit: 'pages/s',
      on: 'svc',
      load: (base) => ({ url: `${base}${data.valuesPath}?limit=1000`, headers: data.auth, connections: 10 }),
    },
    {
      name: 'query records, limit 500, review_status + source_type (10 connections)',
      unit: 'req/s',
      on: 'svc',
      load: (base) => ({
        url: `${base}/v3/accounting/records?limit=500&review_status=READY_FOR_EXPORT&source_type=CARD`,
        headers: data.auth,
        connections: 10,
      }),
    },
    {
      name: 'mixed: 9 gets of one value to 1 create of 10 values with an Idempotency-Key (50 connections)',
      unit: 'req/s',
      on: 'svc',
      load: (base) => {
        let n = 0;
        return {
          url: `${base}${data.valuePaths[0]}`,
          headers: data.auth,
          setupRequest: (request) => {
            const i = n++;
            if (i % 10 !== 9) {
              const get = data.valuePaths[i % data.valuePaths.length]!;
              return { ...request, method: 'GET', path: get, headers: data.auth, body: undefined };
            }
            const from = made;
            made += 10;
            return {
              ...request,
              method: 'POST',
              path: data.mixedPath,
              headers: { ...data.auth, 'idempotency-key': `mixed-${run}-${from}` },
              body: JSON.stringify({
                items: Array.from({ length: 10 }, (_, k) => ({
                  value: `Mixed ${from + k}`,
                  remote_id: `M${from + k}`,
                  value_id: `MV${from + k}`,
                })),
              }),
            };
          },
        };
      },
    },
  ];
  return list;
}
