import type { Db } from '../../db/database.js';
import { deliveriesRepository as deliveries, type EndpointKey } from './deliveries.repository.js';
import { makeDeliveries } from './webhooks.deliveries.js';
import { eventTypesOf } from './webhooks.service.js';

/**
 * A step's fan-out, in turns over the endpoints behind their account's events (key order, from just after the last
 * one served): at most FANOUT_ENDPOINTS endpoints, FANOUT_EVENTS events each and FANOUT_BUDGET events in all, so that
 * an account that makes events by the thousand delays another's by a few steps, not by its whole backlog.
 */
const FANOUT_ENDPOINTS = 20;
const FANOUT_EVENTS = 200;
const FANOUT_BUDGET = 1000;

/**
 * The dispatcher's fan-out (webhooks.dispatcher.ts): each call makes deliveries of the new events of the enabled
 * endpoints that take their type, a bounded share of them, in turns from where the last call stopped.
 */
export function fanOuter(db: Db, now: () => number): () => Promise<{ scanned: number; fanned: number }> {
  /** Where the turns left off: the endpoint fanned out last. */
  let fannedLast: EndpointKey | null = null;

  /** Deliveries for the enabled endpoints' new events of their types: a bounded share of them, in turns. */
  return async function fanOut(): Promise<{ scanned: number; fanned: number }> {
    return db.write(async (ex) => {
      let made = 0;
      let scanned = 0;
      for (const endpoint of await deliveries.behind(ex, fannedLast, FANOUT_ENDPOINTS)) {
        const budget = Math.min(FANOUT_EVENTS, FANOUT_BUDGET - scanned);
        if (budget <= 0) break;
        fannedLast = { account_id: endpoint.account_id, endpoint_id: endpoint.endpoint_id };
        const types = new Set<string>(eventTypesOf(endpoint));
        const events = await deliveries.eventsAfter(ex, endpoint.account_id, Number(endpoint.fanned_seq), budget);
        if (events.length === 0) continue;
        scanned += events.length;
        const taken = events.filter((e) => types.has(e.type)).map((e) => e.event_id);
        made += await makeDeliveries(ex, { ...endpoint, status: 'ENABLED' }, taken, now(), 'keep');
        await deliveries.setFanned(ex, endpoint.account_id, endpoint.endpoint_id, Number(events.at(-1)!.seq));
      }
      return { scanned, fanned: made };
    });
  };
}
