import type { DueEndpoint, EndpointKey as EndpointRef } from './deliveries.repository.js';

/**
 * Which due deliveries a dispatcher takes next (docs/webhooks.md, "Fair delivery"): a slow account delays only
 * itself. Attempts under way are bounded per process, per account and per endpoint, and free places go one at a
 * time to the account with due deliveries that has the fewest attempts under way, in turns among equals. So an
 * account whose receivers never answer holds at most ACCOUNT_CONCURRENCY places (each for up to the send timeout),
 * and another account's delivery is taken at the next step that finds it due, whatever the first has waiting; when
 * every place is taken, the first that frees goes to the account with the fewest under way.
 */

/** Attempts under way in one dispatcher (one process), at most: sockets waiting on receivers cost little. */
export const DELIVERY_CONCURRENCY = 64;
/** Attempts under way for one account in one dispatcher, at most: a quarter of the places. */
export const ACCOUNT_CONCURRENCY = 16;
/**
 * Attempts under way to one endpoint in one dispatcher, at most: as many as the dispatcher made to one endpoint
 * before (8 at a time), and half an account's, so that a slow endpoint leaves its account room for the others.
 */
export const ENDPOINT_CONCURRENCY = 8;

export interface Bounds {
  total: number;
  perAccount: number;
  perEndpoint: number;
}

export const DEFAULT_BOUNDS: Bounds = {
  total: DELIVERY_CONCURRENCY,
  perAccount: ACCOUNT_CONCURRENCY,
  perEndpoint: ENDPOINT_CONCURRENCY,
};

const keyOf = (e: EndpointRef) => `${e.account_id}\u0000${e.endpoint_id}`;

/** The attempts a dispatcher has under way, counted by account and by endpoint. */
export class InFlight {
  #total = 0;
  readonly #accounts = new Map<string, number>();
  readonly #endpoints = new Map<string, number>();

  get total(): number {
    return this.#total;
  }
  account(accountId: string): number {
    return this.#accounts.get(accountId) ?? 0;
  }
  endpoint(ref: EndpointRef): number {
    return this.#endpoints.get(keyOf(ref)) ?? 0;
  }
  add(ref: EndpointRef): void {
    this.#change(ref, 1);
  }
  remove(ref: EndpointRef): void {
    this.#change(ref, -1);
  }
  #change(ref: EndpointRef, by: number): void {
    this.#total += by;
    const account = this.account(ref.account_id) + by;
    if (account === 0) this.#accounts.delete(ref.account_id);
    else this.#accounts.set(ref.account_id, account);
    const endpoint = this.endpoint(ref) + by;
    if (endpoint === 0) this.#endpoints.delete(keyOf(ref));
    else this.#endpoints.set(keyOf(ref), endpoint);
  }
}

export interface Plan {
  /** The places handed out, in the order handed out: one entry per delivery to claim. */
  places: EndpointRef[];
  /** The account served last: the next plan's turns start after it. */
  last: string | null;
}

interface AccountTurn {
  id: string;
  /** attempts under way, and placed by this plan */
  load: number;
  room: number;
  endpoints: { ref: EndpointRef; load: number; room: number }[];
}

/**
 * Hands out the dispatcher's free places among the due endpoints, one at a time, within the bounds and what is
 * already under way: each to the account with the fewest attempts under way (so one that has none is served
 * before one that holds several), equals in turns from just after `after`; within the account, to its endpoint with
 * the fewest under way, equals in key order.
 */
export function planClaims(
  due: readonly DueEndpoint[],
  inFlight: InFlight,
  bounds: Bounds,
  after: string | null,
): Plan {
  const accounts = new Map<string, AccountTurn>();
  for (const endpoint of due) {
    let account = accounts.get(endpoint.account_id);
    if (!account) {
      const load = inFlight.account(endpoint.account_id);
      account = { id: endpoint.account_id, load, room: bounds.perAccount - load, endpoints: [] };
      accounts.set(endpoint.account_id, account);
    }
    const load = inFlight.endpoint(endpoint);
    const room = Math.min(endpoint.due, bounds.perEndpoint - load);
    const ref = { account_id: endpoint.account_id, endpoint_id: endpoint.endpoint_id };
    if (room > 0) account.endpoints.push({ ref, load, room });
  }
  const ids = [...accounts.keys()].sort();
  const first =
    after === null
      ? 0
      : Math.max(
          0,
          ids.findIndex((id) => id > after),
        );
  const turns = [...ids.slice(first), ...ids.slice(0, first)].map((id) => accounts.get(id)!);
  const places: EndpointRef[] = [];
  let last: string | null = null;
  for (let free = bounds.total - inFlight.total; free > 0; free--) {
    let account: AccountTurn | undefined;
    for (const candidate of turns) {
      if (candidate.room <= 0 || !candidate.endpoints.some((e) => e.room > 0)) continue;
      if (account === undefined || candidate.load < account.load) account = candidate;
    }
    if (!account) break;
    let endpoint: AccountTurn['endpoints'][number] | undefined;
    for (const candidate of account.endpoints) {
      if (candidate.room > 0 && (endpoint === undefined || candidate.load < endpoint.load)) endpoint = candidate;
    }
    places.push(endpoint!.ref);
    endpoint!.load++;
    endpoint!.room--;
    account.load++;
    account.room--;
    last = account.id;
  }
  return { places, last };
}
