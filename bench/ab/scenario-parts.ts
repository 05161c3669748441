import { randomUUID } from 'node:crypto';
import { call, valueBatches } from '../lib/api.js';
import { startReceiver, type Receiver } from '../lib/webhooks.js';

// What the A/B scenarios (scenarios.ts) are made of: a side, a scenario, a measure, and the data they set up.

/** What a scenario measures on one side of a pair: the server's URL and the bench client's bearer headers. */
export interface Side {
  url: string;
  auth: Record<string, string>;
  /** Which run this is (distinct across sides and pairs): keys and names made per run use it. */
  run: number;
}

/** What a scenario has made once, on the shared database, before the pairs. */
export type Made = Record<string, unknown>;

export interface AbScenario {
  unit: string;
  /**
   * Each side on a database of its own, made by that side's server (`setup` runs per side, then `settleSeconds` pass
   * before the measurement): for a piece whose effect is the state a load leaves (planner statistics).
   */
  perSide?: { settleSeconds: number };
  /**
   * One server up at a time, started anew for each slice: for a scenario that background work measures (webhook
   * delivery: with both servers up, either's dispatcher would deliver the other's events).
   */
  alone?: boolean;
  /** A second of it on each side first (a rate over a duration: the servers' code warmed before it counts). */
  warmup?: boolean;
  /**
   * `alone` scenarios: run on each slice's new server before it is measured (its CPU not counted), so that the slice
   * measures code V8 has optimised, as a server that has run a while has it, not a cold start.
   */
  warm?(side: Side, made: Made): Promise<void>;
  /** Made once through a server with every piece on, before the pairs. */
  setup(side: Side, size: number, svc: (argv: string[]) => string): Promise<Made>;
  /** One measurement: the scenario's figure (higher is faster). */
  measure(side: Side, made: Made, seconds: number): Promise<Measured>;
}

/** One measurement: the figure (higher is faster) and how many units (requests, values, events) it counted. */
export interface Measured {
  figure: number;
  units: number;
}

export const rps = (r: { rps: number; requests: number; non2xx: number; errors: number }, per = 1): Measured => {
  if (r.non2xx + r.errors > 0) throw new Error(`ab: ${r.non2xx} non-2xx answers and ${r.errors} errors`);
  return { figure: r.rps * per, units: r.requests * per };
};

export async function fieldWithValues(side: Side, values: number): Promise<{ fieldId: string; valueIds: string[] }> {
  const field = await call(`${side.url}/v1/fields`, {
    method: 'POST',
    headers: { ...side.auth, 'idempotency-key': randomUUID() },
    body: { name: `GL ${randomUUID()}`, group: 'ACCOUNTING' },
  });
  const valueIds: string[] = [];
  for (const batch of valueBatches(Math.ceil(values / 1000), side.auth, `ab-${field.svc_id}`)) {
    const res = await fetch(`${side.url}/v1/fields/${field.svc_id}/values`, { method: 'POST', ...batch });
    if (!res.ok) throw new Error(`ab: create values ${res.status}`);
    const body = (await res.json()) as { items: { svc_id: string }[] };
    if (valueIds.length < 1000) valueIds.push(...body.items.map((v) => v.svc_id));
  }
  return { fieldId: field.svc_id, valueIds };
}

export async function recordIds(side: Side, status: string, upTo: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const url = `${side.url}/v3/accounting/records?limit=500&review_status=${status}${cursor ? `&cursor=${cursor}` : ''}`;
    // Once more if the first try finds its kept-alive connection closed by the server (idle through a long seed).
    const page: { items: { id: string }[]; next_cursor: string | null } = await call(url, { headers: side.auth }).catch(
      () => call(url, { headers: side.auth }),
    );
    ids.push(...page.items.map((r) => r.id));
    cursor = ids.length >= upTo ? null : page.next_cursor;
  } while (cursor);
  return ids.slice(0, upTo);
}

export const seed = (svc: (argv: string[]) => string, records: number) =>
  svc(['seed', '--account', 'bench', '--records', String(records), '--values', '200', '--into-existing']);

/**
 * `svc seed` of `records`, and the bench's receiver subscribed to ready_for_export through the API; with the
 * endpoint's signing secret (to verify the deliveries).
 */
export async function seededWithReceiver(
  side: Side,
  records: number,
  svc: (argv: string[]) => string,
  description: string,
): Promise<{ receiver: Receiver; secret: string }> {
  seed(svc, records);
  const receiver = await startReceiver();
  const hook: { secret: string } = await call(`${side.url}/v1/webhooks`, {
    method: 'POST',
    headers: { ...side.auth, 'idempotency-key': randomUUID() },
    body: { url: receiver.url, event_types: ['accounting_record.ready_for_export'], description },
  });
  return { receiver, secret: hook.secret };
}

/** Moves records under review to READY_FOR_EXPORT in one request (each move makes an event a record). */
export const moveToReady = (side: Side, ids: readonly string[]) =>
  call(`${side.url}/internal/v1/accounting/records/review-status`, {
    method: 'POST',
    headers: side.auth,
    body: { review_status: 'READY_FOR_EXPORT', records: ids.map((id) => ({ id })) },
  });
