import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { nowMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { deliveriesRepository as deliveries, type DueDelivery, type EndpointKey } from './deliveries.repository.js';
import { webhooksRepository } from './webhooks.repository.js';
import { attempter } from './webhooks.attempt.js';
import { DEFAULT_BOUNDS, InFlight, planClaims, type Bounds } from './webhooks.scheduler.js';
import { eventTypesOf } from './webhooks.service.js';
import { systemResolver, type Resolver } from './webhooks.targets.js';

export { DISABLE_AFTER, RETRY_WINDOW, retryDelay } from './webhooks.attempt.js';
export { ACCOUNT_CONCURRENCY, DELIVERY_CONCURRENCY, ENDPOINT_CONCURRENCY } from './webhooks.scheduler.js';

/** How long a claimed delivery is this process's: well over the send timeout. */
export const LEASE = 60_000_000;
/**
 * A step's fan-out, in turns over the endpoints behind their account's events (key order, from just after the last
 * one served): at most FANOUT_ENDPOINTS endpoints, FANOUT_EVENTS events each and FANOUT_BUDGET events in all, so that
 * an account that makes events by the thousand delays another's by a few steps, not by its whole backlog.
 */
const FANOUT_ENDPOINTS = 20;
const FANOUT_EVENTS = 200;
const FANOUT_BUDGET = 1000;

export interface DispatcherOptions {
  db: Db;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS */
  allowPrivateTargets: boolean;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** microseconds now: schedules, leases, the retry window and the log's times (tests move it) */
  now?: () => number;
  resolve?: Resolver;
  random?: () => number;
  /** attempts under way at once, in all (default DELIVERY_CONCURRENCY: 32) */
  concurrency?: number;
  /** … for one account (default ACCOUNT_CONCURRENCY: 8) and for one endpoint (ENDPOINT_CONCURRENCY: 4) */
  accountConcurrency?: number;
  endpointConcurrency?: number;
  /** one attempt's whole exchange (default 10 s) */
  timeoutMs?: number;
  /** the longest pause between steps that found nothing to do (default 1 s; an attempt that ends cuts it short) */
  idleMs?: number;
}

export interface RoundStats {
  /** new events looked at for the endpoints, and the deliveries made of them */
  scanned: number;
  fanned: number;
  attempted: number;
  delivered: number;
}

/** A delivery a step claimed, its attempt under way. */
export interface Claimed extends EndpointKey {
  delivery_id: string;
  event_id: string;
  /** Whether the attempt delivered, once its outcome is written (rejects when it could not be). */
  settled: Promise<boolean>;
}

export interface Step {
  scanned: number;
  fanned: number;
  /** In the order the places were handed out (round-robin over the accounts). */
  claimed: Claimed[];
}

export interface Dispatcher {
  /**
   * One step: new events made into deliveries (a bounded share, in turns), then due deliveries claimed for the free
   * places, fairly (webhooks.scheduler.ts), and their attempts started, not awaited.
   */
  step(): Promise<Step>;
  /** Steps, each one's attempts awaited, until a step finds nothing to do: everything due now is attempted. */
  runOnce(): Promise<RoundStats>;
  /** Resolves when every attempt under way has ended (delivered, failed or timed out) and its outcome is written. */
  settled(): Promise<void>;
  /** Steps until stop(): again at once after a step that did something, else when an attempt ends or after idleMs. */
  start(): void;
  /** Ends the loop, then waits for the attempts under way (they finish or time out). */
  stop(): Promise<void>;
}

/**
 * Webhook delivery, outside requests (started by server.ts). Safe with many processes on one database: fan-out
 * and claims lock what they take (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one write transaction at a time),
 * and a claim is a lease, so no attempt is made twice at once and a dead process's claims come due again.
 * Attempts run beside the steps: a slow one holds its place (and its account's), not the dispatcher.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db } = options;
  const now = options.now ?? nowMicros;
  const bounds: Bounds = {
    total: options.concurrency ?? DEFAULT_BOUNDS.total,
    perAccount: options.accountConcurrency ?? DEFAULT_BOUNDS.perAccount,
    perEndpoint: options.endpointConcurrency ?? DEFAULT_BOUNDS.perEndpoint,
  };
  const attempt = attempter({
    db,
    now,
    random: options.random ?? Math.random,
    timeoutMs: options.timeoutMs ?? 10_000,
    rules: { allowPrivate: options.allowPrivateTargets },
    resolve: options.resolve ?? systemResolver,
    log: options.log,
  });
  const inFlight = new InFlight();
  const underWay = new Set<Promise<void>>();
  /** Where the turns left off: the endpoint fanned out last, the account given a place last. */
  let fannedLast: EndpointKey | null = null;
  let servedLast: string | null = null;

  /** Deliveries for the enabled endpoints' new events of their types: a bounded share of them, in turns. */
  async function fanOut(): Promise<{ scanned: number; fanned: number }> {
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
        const at = now();
        const rows = events
          .filter((e) => types.has(e.type))
          .map((e) => ({
            account_id: endpoint.account_id,
            delivery_id: newId('whd'),
            endpoint_id: endpoint.endpoint_id,
            event_id: e.event_id,
            status: 'PENDING' as const,
            attempts: 0,
            next_attempt_at: at,
            retry_from: at,
            lease_token: null,
            created_at: at,
            updated_at: at,
          }));
        await webhooksRepository.insertDeliveries(ex, rows);
        await deliveries.setFanned(ex, endpoint.account_id, endpoint.endpoint_id, Number(events.at(-1)!.seq));
        made += rows.length;
      }
      return { scanned, fanned: made };
    });
  }

  /** Claims due deliveries for the free places, handed out by the scheduler; in the order handed out. */
  async function claim(token: string): Promise<DueDelivery[]> {
    const at = now();
    return db.write(async (ex) => {
      const due = await deliveries.dueEndpoints(ex, at, bounds.perEndpoint);
      const plan = planClaims(due, inFlight, bounds, servedLast);
      servedLast = plan.last ?? servedLast;
      const wanted = new Map<string, { endpoint: EndpointKey; count: number }>();
      for (const place of plan.places) {
        const key = `${place.account_id}\u0000${place.endpoint_id}`;
        const entry = wanted.get(key) ?? { endpoint: place, count: 0 };
        entry.count++;
        wanted.set(key, entry);
      }
      const taken = new Map<string, DueDelivery[]>();
      for (const [key, { endpoint, count }] of wanted) {
        taken.set(key, await deliveries.claim(ex, endpoint, at, count, at + LEASE, token));
      }
      // Another process may have claimed some since the count: their places stay free for the next step.
      return plan.places.flatMap((place) => taken.get(`${place.account_id}\u0000${place.endpoint_id}`)?.shift() ?? []);
    });
  }

  function begin(d: DueDelivery, token: string): Claimed {
    inFlight.add(d);
    const settled = attempt(d, token);
    const ended: Promise<void> = settled
      .then(
        () => undefined,
        (error: unknown) =>
          options.log?.warn(
            { err: error, account_id: d.account_id, webhook_id: d.endpoint_id, event_id: d.event_id },
            'webhook attempt not settled; the delivery comes due again when its lease runs out',
          ),
      )
      .finally(() => {
        inFlight.remove(d);
        underWay.delete(ended);
        poke();
      });
    underWay.add(ended);
    return {
      account_id: d.account_id,
      endpoint_id: d.endpoint_id,
      delivery_id: d.delivery_id,
      event_id: d.event_id,
      settled,
    };
  }

  async function step(): Promise<Step> {
    const work = await deliveries.hasWork(db.direct, now());
    const { scanned, fanned } = work.behind ? await fanOut() : { scanned: 0, fanned: 0 };
    const token = randomUUID();
    const claimed = (work.behind || work.due) && inFlight.total < bounds.total ? await claim(token) : [];
    return { scanned, fanned, claimed: claimed.map((d) => begin(d, token)) };
  }

  async function runOnce(): Promise<RoundStats> {
    const stats: RoundStats = { scanned: 0, fanned: 0, attempted: 0, delivered: 0 };
    for (;;) {
      const { scanned, fanned, claimed } = await step();
      stats.scanned += scanned;
      stats.fanned += fanned;
      stats.attempted += claimed.length;
      for (const delivered of await Promise.all(claimed.map((c) => c.settled))) if (delivered) stats.delivered++;
      if (scanned === 0 && claimed.length === 0) return stats;
    }
  }

  const settled = async () => {
    while (underWay.size > 0) await Promise.all(underWay);
  };

  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  let poked = false;
  /** An attempt ended (a place is free): the loop's pause ends now, or the next one is skipped. */
  function poke(): void {
    if (wake) wake();
    else poked = true;
  }
  const pause = (ms: number) =>
    new Promise<void>((done) => {
      if (poked) {
        poked = false;
        done();
        return;
      }
      const finish = () => {
        clearTimeout(timer);
        wake = null;
        done();
      };
      const timer = setTimeout(finish, ms);
      wake = finish;
    });

  return {
    step,
    runOnce,
    settled,
    start() {
      if (running) return;
      running = true;
      loop = (async () => {
        while (running) {
          let again = false;
          try {
            const { scanned, claimed } = await step();
            again = (scanned > 0 || claimed.length > 0) && inFlight.total < bounds.total;
          } catch (error) {
            options.log?.warn({ err: error }, 'webhook step failed; will retry');
          }
          if (running && !again) await pause(options.idleMs ?? 1000);
        }
      })();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      await settled();
    },
  };
}
