import { randomUUID } from 'node:crypto';
import type { Executor } from '../../db/database.js';
import { nowMicros } from '../../lib/clock.js';
import { deliveryCommit } from '../../speed/lazy-commit.js';
import { deliveriesRepository as deliveries, type DueDelivery, type EndpointKey } from './deliveries.repository.js';
import { attempter } from './webhooks.attempt.js';
import { fanOuter } from './webhooks.fanout.js';
import { liveness } from './webhooks.liveness.js';
import { DEFAULT_BOUNDS, InFlight, planClaims, type Bounds } from './webhooks.scheduler.js';
import { systemResolver } from './webhooks.targets.js';
import type { Claimed, Dispatcher, DispatcherOptions, RoundStats, Step } from './webhooks.dispatcher.types.js';

export { DISABLE_AFTER, RETRY_WINDOW, retryDelay } from './webhooks.attempt.js';
export type { Claimed, Dispatcher, DispatcherOptions, RoundStats, Step } from './webhooks.dispatcher.types.js';
export { ACCOUNT_CONCURRENCY, DELIVERY_CONCURRENCY, ENDPOINT_CONCURRENCY } from './webhooks.scheduler.js';

/**
 * How long a claimed delivery is this process's at most: well over the send timeout. A claim of a process found dead
 * is taken over sooner (takeoverAfter, webhooks.liveness.ts); the lease is for claims of no known process.
 */
export const LEASE = 60_000_000;
const keyOf = (e: EndpointKey) => `${e.account_id}\u0000${e.endpoint_id}`;

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
    rules: { allowPrivate: options.allowPrivateTargets, allowLoopback: options.allowLoopbackTargets ?? false },
    resolve: options.resolve ?? systemResolver,
    log: options.log,
    outcomeWrites: options.outcomeWrites,
    outcomeGroups: options.outcomeGroups,
  });
  const live = liveness({ db, now, takeoverAfter: options.takeoverAfter, log: options.log });
  const lease = options.lease ?? LEASE;
  const commit = deliveryCommit();
  const inFlight = new InFlight();
  const underWay = new Set<Promise<unknown>>();
  let begun = 0;
  let deliveredCount = 0;
  const fanOut = fanOuter(db, now);
  /** The loop paused with every place taken after a step that found work (events may be left to fan out). */
  let fullWhenPaused = false;
  /** Where the turns left off: the account given a place last. */
  let servedLast: string | null = null;
  /** stop() was called: attempts that end hand their places to nobody (the backlog waits for the next process). */
  let stopping = false;
  /**
   * By transaction, the places free after its last claim: a group of outcomes frees its places first, then each
   * outcome's `then` asks to claim in the group's transaction; the first claims for all of them, and the others,
   * finding no place freed since, read nothing more.
   */
  const freeAfterClaim = new WeakMap<Executor, number>();

  /**
   * Claims due deliveries in `ex` for the free places, handed out by the scheduler; in the order handed out. Each is
   * counted under way from the moment it is planned, before any other claim can plan (another transaction's claim
   * runs beside this one on PostgreSQL); the caller releases them if the transaction does not commit.
   */
  async function claimIn(ex: Executor, token: string, claimed: DueDelivery[]): Promise<void> {
    // A step begun before stop() claims nothing once it was called (the places its attempts free go to nobody).
    if (stopping) return;
    if (freeAfterClaim.get(ex) === bounds.total - inFlight.total) return;
    const at = now();
    const due = await deliveries.dueEndpoints(ex, at, bounds.perEndpoint);
    // Asked again after the read: stop() may have come meanwhile, and attempts ending since have freed places that
    // must go to nobody. Nothing runs between this check and the planning, which counts the places taken.
    if (stopping) return;
    const plan = planClaims(due, inFlight, bounds, servedLast);
    servedLast = plan.last ?? servedLast;
    const wanted = new Map<string, { endpoint: EndpointKey; count: number }>();
    for (const place of plan.places) {
      inFlight.add(place);
      const key = keyOf(place);
      const entry = wanted.get(key) ?? { endpoint: place, count: 0 };
      entry.count++;
      wanted.set(key, entry);
    }
    const taken = new Map<string, DueDelivery[]>();
    try {
      for (const [key, { endpoint, count }] of wanted) {
        taken.set(key, await deliveries.claim(ex, endpoint, at, count, at + lease, { token, by: live.id }));
      }
    } finally {
      // A place left empty (another process claimed its delivery since the count, or the claim failed) is free.
      for (const place of plan.places) {
        const row = taken.get(keyOf(place))?.shift();
        if (row) claimed.push(row);
        else inFlight.remove(place);
      }
    }
    freeAfterClaim.set(ex, bounds.total - inFlight.total);
  }

  /** Runs `claim` in a write transaction of its own: the deliveries it claimed, released if it did not commit. */
  async function claimAlone(token: string): Promise<DueDelivery[]> {
    const claimed: DueDelivery[] = [];
    try {
      await db.write((ex) => claimIn(ex, token, claimed), commit);
    } catch (error) {
      for (const d of claimed) inFlight.remove(d);
      throw error;
    }
    return claimed;
  }

  /**
   * Attempts a claimed delivery (counted under way already). Its outcome's transaction also hands out the place it
   * frees (claims for it), so that a busy dispatcher claims without a commit of its own; those claims begin next.
   */
  function begin(d: DueDelivery, token: string): Claimed {
    begun++;
    const nextToken = randomUUID();
    const chained: DueDelivery[] = [];
    let freed = false;
    const free = () => {
      if (!freed) inFlight.remove(d);
      freed = true;
    };
    const outcome = attempt(
      d,
      token,
      async (ex) => {
        // Run again when the commit of the group it ran in failed (webhooks.attempt.ts): what the run before claimed
        // was rolled back with it, and its places are free again.
        for (const c of chained.splice(0)) inFlight.remove(c);
        free();
        if (!stopping) await claimIn(ex, nextToken, chained);
      },
      free,
    );
    const settled = outcome.then(({ delivered }) => {
      if (delivered) deliveredCount++;
      return delivered;
    });
    settled.catch(() => {}); // awaited by whoever wants the outcome; its failure is logged below
    const next: Promise<Claimed[]> = outcome
      .then(
        () => chained.map((c) => begin(c, nextToken)),
        (error: unknown) => {
          for (const c of chained) inFlight.remove(c);
          options.log?.warn(
            { err: error, account_id: d.account_id, webhook_id: d.endpoint_id, event_id: d.event_id },
            'webhook attempt not settled; the delivery comes due again when its lease runs out',
          );
          return [];
        },
      )
      .finally(() => {
        if (!freed) inFlight.remove(d);
        underWay.delete(next);
        // The loop waits because every place was taken, not for want of work: a place is free now.
        if (fullWhenPaused) wakeLoop();
      });
    underWay.add(next);
    return {
      account_id: d.account_id,
      endpoint_id: d.endpoint_id,
      delivery_id: d.delivery_id,
      event_id: d.event_id,
      settled,
      next,
    };
  }

  async function step(): Promise<Step> {
    // Takes over the claims of dispatchers found dead (so they are due in this very step), and beats while busy.
    await live.tick(inFlight.total > 0);
    const work = await deliveries.hasWork(db.direct, now());
    const { scanned, fanned } = work.behind ? await fanOut() : { scanned: 0, fanned: 0 };
    const token = randomUUID();
    const claiming = (work.behind || work.due) && inFlight.total < bounds.total && !stopping;
    // A claim is made after a beat: whoever watches sees this process alive before it holds anything.
    if (claiming) await live.tick(true);
    const claimed = claiming ? await claimAlone(token) : [];
    return { scanned, fanned, claimed: claimed.map((d) => begin(d, token)) };
  }

  async function runOnce(): Promise<RoundStats> {
    const stats: RoundStats = { scanned: 0, fanned: 0, attempted: 0, delivered: 0 };
    const [begunBefore, deliveredBefore] = [begun, deliveredCount];
    for (;;) {
      const { scanned, fanned, claimed } = await step();
      stats.scanned += scanned;
      stats.fanned += fanned;
      await Promise.all(claimed.map((c) => c.settled));
      await settled(); // and the attempts their outcomes claimed for the places they freed
      if (scanned === 0 && claimed.length === 0) break;
    }
    return { ...stats, attempted: begun - begunBefore, delivered: deliveredCount - deliveredBefore };
  }

  const settled = async () => {
    while (underWay.size > 0) await Promise.all(underWay);
  };

  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  /** wake() was called while a step ran: that step may have read before what woke it committed. */
  let rung = false;
  /** Told when the loop next waits with nothing to do (whenIdle). */
  const idleWaiters: (() => void)[] = [];
  /** Steps now: ends the pause, or, during a step, has the loop step again right after it. */
  function wakeLoop(): void {
    if (wake) wake();
    else rung = true;
  }
  const pause = (ms: number) =>
    new Promise<void>((done) => {
      if (rung) {
        rung = false;
        done();
        return;
      }
      for (const told of idleWaiters.splice(0)) told();
      const timer = setTimeout(() => {
        wake = null;
        done();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = null;
        done();
      };
    });

  return {
    id: live.id,
    step,
    runOnce,
    settled,
    start() {
      if (running) return;
      running = true;
      live.start(() => inFlight.total > 0);
      loop = (async () => {
        while (running) {
          let again = false;
          let full = false;
          rung = false;
          try {
            const { scanned, claimed } = await step();
            full = (scanned > 0 || claimed.length > 0) && inFlight.total >= bounds.total;
            again = (scanned > 0 || claimed.length > 0) && !full;
          } catch (error) {
            options.log?.warn({ err: error }, 'webhook step failed; will retry');
          }
          if (running && !again) {
            fullWhenPaused = full;
            await pause(options.idleMs ?? 1000);
            fullWhenPaused = false;
          }
        }
      })();
    },
    wake: wakeLoop,
    whenIdle() {
      if (wake || stopping) return Promise.resolve();
      return new Promise<void>((told) => idleWaiters.push(told));
    },
    async stop() {
      running = false;
      stopping = true;
      for (const told of idleWaiters.splice(0)) told();
      wake?.();
      await loop;
      await settled();
      await live.leave();
    },
  };
}
