import { randomUUID } from 'node:crypto';
import { call, valueBatches } from '../lib/api.js';
import { load } from '../lib/load.js';
import type { Receiver } from '../lib/webhooks.js';
import {
  fieldWithValues,
  moveToReady,
  recordIds,
  rps,
  seed,
  seededWithReceiver,
  type AbScenario,
  type Side,
} from './scenario-parts.js';
import { webhooksSustained } from './webhooks-sustained.js';

export type { Measured, Side } from './scenario-parts.js';

/**
 * `count` records under review moved to READY_FOR_EXPORT in one move, then waited for until the receiver has each one's
 * event: the seconds from the move to the last arrival.
 */
async function delivered(side: Side, made: unknown, count: number): Promise<number> {
  const { receiver, ids } = made as { receiver: Receiver; ids: string[] };
  const mine = ids.splice(0, count);
  if (mine.length < count) throw new Error('ab: too few records under review left');
  receiver.reset();
  const started = performance.now();
  await moveToReady(side, mine);
  await receiver.waitFor(count, 120_000);
  return (Math.max(...receiver.arrivals.map((a) => a.at)) - started) / 1000;
}

/** The scenarios a piece (or the whole branch) is measured on: the bench's own, at the sizes given. */
export const SCENARIOS: Record<string, AbScenario> = {
  'get-value': {
    unit: 'req/s',
    warmup: true,
    setup: async (side) => ({ ...(await fieldWithValues(side, 10_000)) }),
    async measure(side, made, seconds) {
      const { fieldId, valueIds } = made as { fieldId: string; valueIds: string[] };
      const r = await load({
        url: `${side.url}/v1/fields/${fieldId}/values/${valueIds[500]}`,
        headers: side.auth,
        durationSeconds: seconds,
      });
      return rps(r);
    },
  },
  'list-values': {
    unit: 'pages/s',
    warmup: true,
    setup: async (side, size) => ({ ...(await fieldWithValues(side, size)) }),
    async measure(side, made, seconds) {
      const { fieldId } = made as { fieldId: string };
      const url = `${side.url}/v1/fields/${fieldId}/values?limit=1000`;
      return rps(await load({ url, headers: side.auth, durationSeconds: seconds, connections: 10 }));
    },
  },
  token: {
    unit: 'req/s',
    warmup: true,
    setup: async () => ({}),
    async measure(side, made, seconds) {
      const { creds } = made as { creds: string };
      const r = await load({
        url: `${side.url}/oauth2/token`,
        method: 'POST',
        headers: { authorization: `Basic ${creds}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
        durationSeconds: seconds,
      });
      return rps(r);
    },
  },
  'create-values': {
    unit: 'values/s',
    warmup: true,
    setup: async () => ({}),
    async measure(side, _made, seconds) {
      const field = await call(`${side.url}/v1/fields`, {
        method: 'POST',
        headers: { ...side.auth, 'idempotency-key': randomUUID() },
        body: { name: `Create ${side.run}`, group: 'ACCOUNTING' },
      });
      const bodies = valueBatches(Math.max(4, seconds * 4), side.auth, `ab-create-${side.run}`);
      let n = 0;
      const r = await load({
        url: `${side.url}/v1/fields/${field.svc_id}/values`,
        method: 'POST',
        headers: side.auth,
        connections: 4,
        amount: bodies.length,
        setupRequest: (request) => ({ ...request, ...bodies[n++ % bodies.length] }),
      });
      return rps(r, 1000);
    },
  },
  'update-values': {
    unit: 'values/s',
    warmup: true,
    setup: async (side, size) => ({ ...(await fieldWithValues(side, size)), size }),
    async measure(side, made, seconds) {
      const { fieldId, size } = made as { fieldId: string; size: number };
      const bodies = Array.from({ length: Math.max(4, seconds * 3) }, (_, n) => ({
        headers: { ...side.auth, 'idempotency-key': `ab-update-${side.run}-${n}` },
        body: JSON.stringify({
          items: Array.from({ length: 1000 }, (_, i) => ({
            remote_id: `R${(n * 1000 + i) % size}`,
            data: { value: `Renamed ${side.run}-${n}-${i}` },
          })),
        }),
      }));
      let n = 0;
      const r = await load({
        url: `${side.url}/v1/fields/${fieldId}/values`,
        method: 'PUT',
        headers: side.auth,
        connections: 4,
        amount: bodies.length,
        setupRequest: (request) => ({ ...request, ...bodies[n++ % bodies.length] }),
      });
      return rps(r, 1000);
    },
  },
  'move-records': {
    unit: 'records/s',
    warmup: true,
    async setup(side, size, svc) {
      seed(svc, size);
      return { ids: await recordIds(side, 'REVIEW', 4000) };
    },
    async measure(side, made) {
      // Each measurement moves its records both ways, REVIEW → READY_FOR_EXPORT and back (a move's cost depends on
      // its direction: to READY_FOR_EXPORT reads the records' lines), 1000 a request, 2 requests at a time.
      const { ids } = made as { ids: string[] };
      const count = Math.min(4, Math.floor(ids.length / 1000));
      const batches = (to: string) =>
        Array.from({ length: count }, (_, n) =>
          JSON.stringify({ review_status: to, records: ids.slice(n * 1000, n * 1000 + 1000).map((id) => ({ id })) }),
        );
      let requests = 0;
      let seconds = 0;
      for (const bodies of [batches('READY_FOR_EXPORT'), batches('REVIEW')]) {
        let n = 0;
        const r = await load({
          url: `${side.url}/internal/v1/accounting/records/review-status`,
          method: 'POST',
          headers: side.auth,
          connections: 2,
          amount: bodies.length,
          setupRequest: (request) => ({ ...request, body: bodies[n++ % bodies.length] }),
        });
        rps(r); // refuses failures
        requests += r.requests;
        seconds += r.requests / r.rps;
      }
      return { figure: (requests * 1000) / seconds, units: requests * 1000 };
    },
  },
  'export-results': {
    unit: 'records/s',
    async setup(side, size, svc) {
      seed(svc, size * 2);
      return { ids: await recordIds(side, 'READY_FOR_EXPORT', size) };
    },
    async measure(side, made) {
      const { ids } = made as { ids: string[] };
      const per = 2;
      const mine = ids.splice(0, per * 1000);
      if (mine.length < per * 1000) throw new Error('ab: too few READY_FOR_EXPORT records left');
      const bodies = Array.from({ length: per }, (_, n) => ({
        headers: { ...side.auth, 'idempotency-key': `ab-export-${side.run}-${n}` },
        body: JSON.stringify({
          results: mine.slice(n * 1000, n * 1000 + 1000).map((id, i) => ({
            accounting_record_id: id,
            success: { reference_id: `JE-${side.run}-${n}-${i}` },
          })),
        }),
      }));
      let n = 0;
      const r = await load({
        url: `${side.url}/v3/accounting/records/export-results`,
        method: 'POST',
        headers: side.auth,
        connections: 2,
        amount: bodies.length,
        setupRequest: (request) => ({ ...request, ...bodies[n++ % bodies.length] }),
      });
      return rps(r, 1000);
    },
  },
  'list-values-after-load': {
    unit: 'pages/s',
    perSide: { settleSeconds: 12 },
    setup: async (side, size) => ({ ...(await fieldWithValues(side, size)) }),
    async measure(side, made, seconds) {
      const { fieldId } = made as { fieldId: string };
      const url = `${side.url}/v1/fields/${fieldId}/values?limit=1000`;
      return rps(await load({ url, headers: side.auth, durationSeconds: seconds, connections: 10 }));
    },
  },
  webhooks: {
    unit: 'events/s',
    alone: true,
    async setup(side, size, svc) {
      const { receiver } = await seededWithReceiver(side, size, svc, 'ab');
      return { receiver, ids: await recordIds(side, 'REVIEW', 40_000) };
    },
    // 200 events delivered first by each slice's new server (a record moved per event, not measured).
    async warm(side, made) {
      await delivered(side, made, 200);
    },
    async measure(side, made) {
      // 1000 records moved to READY_FOR_EXPORT in one move: events/s from the move to the last arrival.
      const seconds = await delivered(side, made, 1000);
      return { figure: 1000 / seconds, units: 1000 };
    },
  },
  'webhooks-sustained': webhooksSustained,
  'query-records': {
    unit: 'req/s',
    warmup: true,
    async setup(side, size, svc) {
      seed(svc, size);
      return {};
    },
    async measure(side, _made, seconds) {
      const url = `${side.url}/v3/accounting/records?limit=500&review_status=READY_FOR_EXPORT&source_type=CARD`;
      return rps(await load({ url, headers: side.auth, durationSeconds: seconds, connections: 1 }));
    },
  },
  suggestions: {
    // `svc seed`'s company: an approved history of merchants each coded to its account, and a queue of uncoded
    // records of the same merchants; five grid pages of 200 of them asked in turn, one request at a time.
    unit: 'pages/s',
    warmup: true,
    async setup(side, size, svc) {
      seed(svc, size);
      const ids = await recordIds(side, 'PREPARE', 1000);
      if (ids.length < 200) throw new Error(`ab: the seed left ${ids.length} records in PREPARE, fewer than a page`);
      const pages = Array.from({ length: Math.floor(ids.length / 200) }, (_, p) => ids.slice(p * 200, p * 200 + 200));
      return { bodies: pages.map((page) => JSON.stringify({ accounting_record_ids: page })) };
    },
    async measure(side, made, seconds) {
      const { bodies } = made as { bodies: string[] };
      let n = 0;
      const r = await load({
        url: `${side.url}/internal/v1/accounting/suggestions`,
        method: 'POST',
        headers: { ...side.auth, 'content-type': 'application/json' },
        durationSeconds: seconds,
        connections: 1,
        setupRequest: (request) => ({ ...request, body: bodies[n++ % bodies.length] }),
      });
      return rps(r);
    },
  },
};
