import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { deliveriesRepository as deliveries, type DueDelivery } from './deliveries.repository.js';
import { deliveryBody } from './events.service.js';
import { webhooksRepository } from './webhooks.repository.js';
import { isDelivered, sendWebhook, type SendResult } from './webhooks.sender.js';
import { eventTypesOf, validSecrets } from './webhooks.service.js';
import { signedHeaders } from './webhooks.signing.js';
import { systemResolver, type Resolver } from './webhooks.targets.js';

const SECOND = 1_000_000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;

/** A delivery is retried for this long after it is made (or redelivered), then given up (FAILED). */
export const RETRY_WINDOW = 3 * DAY;
/** An endpoint whose every attempt failed for this long is disabled, with the reason. */
export const DISABLE_AFTER = 5 * DAY;
/** How long a claimed delivery is this process's: well over the send timeout. */
export const LEASE = 60 * SECOND;
const FIRST_RETRY = 5 * SECOND;
const LONGEST_WAIT = 8 * HOUR;

/**
 * The wait before the retry that follows the `attempts`-th failed attempt: 5 s × 3^(attempts−1), at most 8 h,
 * times a random factor from 0.75 to 1.25 (so that an endpoint back from an outage is not hit by every retry at
 * once). Over the 3-day window: about 17 attempts (5 s, 15 s, 45 s, 2¼ min, 7 min, 20 min, 1 h, 3 h, then 8 h).
 */
export function retryDelay(attempts: number, random: () => number): number {
  const base = Math.min(FIRST_RETRY * 3 ** Math.max(0, attempts - 1), LONGEST_WAIT);
  return Math.round(base * (0.75 + random() / 2));
}

export interface DispatcherOptions {
  db: Db;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS */
  allowPrivateTargets: boolean;
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** microseconds now: schedules, leases, the retry window and the log's times (tests move it) */
  now?: () => number;
  resolve?: Resolver;
  random?: () => number;
  /** deliveries attempted at once (default 8) */
  concurrency?: number;
  /** one attempt's whole exchange (default 10 s) */
  timeoutMs?: number;
  /** the pause between rounds that found nothing to do (default 1 s) */
  idleMs?: number;
}

export interface RoundStats {
  /** new events looked at for the endpoints, and the deliveries made of them */
  scanned: number;
  fanned: number;
  attempted: number;
  delivered: number;
}

export interface Dispatcher {
  /** One round: new events made into deliveries, the due ones attempted (and awaited), old rows swept hourly. */
  runOnce(): Promise<RoundStats>;
  /** Rounds until stop(): at once after a round that did something, else after idleMs. */
  start(): void;
  /** Ends the loop after the round under way (its attempts finish or time out). */
  stop(): Promise<void>;
}

/**
 * Webhook delivery, outside requests (started by server.ts). Safe with many processes on one database: fan-out
 * and claims lock what they take (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one write transaction at a time),
 * and a claim is a lease, so no attempt is made twice at once and a dead process's claims come due again.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db } = options;
  const now = options.now ?? nowMicros;
  const random = options.random ?? Math.random;
  const concurrency = options.concurrency ?? 8;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const rules = { allowPrivate: options.allowPrivateTargets };
  const resolve = options.resolve ?? systemResolver;

  /** Deliveries for every enabled endpoint's new events of its types. */
  async function fanOut(): Promise<{ scanned: number; fanned: number }> {
    return db.write(async (ex) => {
      let made = 0;
      let scanned = 0;
      for (const endpoint of await deliveries.behind(ex, 50)) {
        const types = new Set<string>(eventTypesOf(endpoint));
        const events = await deliveries.eventsAfter(ex, endpoint.account_id, Number(endpoint.fanned_seq), 500);
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

  async function attempt(d: DueDelivery, token: string): Promise<boolean> {
    const startedAt = now();
    const body = deliveryBody({
      account_id: d.account_id,
      seq: 0,
      event_id: d.event_id,
      type: d.type,
      occurred_at: d.occurred_at,
      data_json: d.data_json,
    });
    const secrets = validSecrets(d, startedAt).map((s) => s.secret);
    // The signature's time is the wall clock's: receivers check it against theirs.
    const headers = signedHeaders(secrets, d.event_id, new Date(), body);
    const result = await sendWebhook(d.url, body, headers, { timeoutMs, rules, resolve });
    if (result.refused) {
      // For the operator: someone points a webhook inside. The words are the attempt's own: no address.
      options.log?.warn(
        { account_id: d.account_id, webhook_id: d.endpoint_id, event_id: d.event_id, error: result.error },
        'webhook target refused: not a public address',
      );
    }
    await settle(d, token, result, startedAt);
    return isDelivered(result);
  }

  async function settle(d: DueDelivery, token: string, result: SendResult, attemptedAt: number): Promise<void> {
    const delivered = isDelivered(result);
    await db.write(async (ex) => {
      const at = now();
      await deliveries.insertAttempt(ex, {
        account_id: d.account_id,
        attempt_id: newId('wha'),
        endpoint_id: d.endpoint_id,
        event_id: d.event_id,
        attempted_at: attemptedAt,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        response_excerpt: result.excerpt,
        error: result.error,
        succeeded: delivered ? 1 : 0,
      });
      const attempts = d.attempts + 1;
      const givenUp = !delivered && at - Number(d.retry_from) >= RETRY_WINDOW;
      const stillOurs = await deliveries.settle(ex, d, token, {
        status: delivered ? 'DELIVERED' : givenUp ? 'FAILED' : 'PENDING',
        attempts,
        nextAttemptAt: delivered || givenUp ? at : at + retryDelay(attempts, random),
        now: at,
      });
      // The lease ran out and another process holds the delivery now: the attempt is logged, the endpoint's
      // health is that process's to judge.
      if (!stillOurs) return;
      const endpoint = await deliveries.endpointFailing(ex, d.account_id, d.endpoint_id);
      if (!endpoint) return;
      if (delivered) {
        if (endpoint.failing_since !== null) {
          await deliveries.setEndpoint(ex, d.account_id, d.endpoint_id, { failing_since: null });
        }
        return;
      }
      const since = endpoint.failing_since === null ? at : Number(endpoint.failing_since);
      if (endpoint.status === 'ENABLED' && at - since >= DISABLE_AFTER) {
        const last = result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'no answer');
        await deliveries.setEndpoint(ex, d.account_id, d.endpoint_id, {
          status: 'DISABLED',
          disabled_at: at,
          updated_at: at,
          disabled_reason: `Every delivery attempt failed for ${Math.round((at - since) / DAY)} days (since ${microsToIso(since)}); the last one: ${last}. Fix the endpoint, then enable it again (PUT status ENABLED) and redeliver what it missed.`,
        });
        await webhooksRepository.setWaiting(ex, d.account_id, d.endpoint_id, 'PENDING', 'PAUSED', at);
        options.log?.warn({ account_id: d.account_id, webhook_id: d.endpoint_id }, 'webhook endpoint disabled');
      } else if (endpoint.failing_since === null) {
        await deliveries.setEndpoint(ex, d.account_id, d.endpoint_id, { failing_since: at });
      }
    });
  }

  async function runOnce(): Promise<RoundStats> {
    const work = await deliveries.hasWork(db.direct, now());
    const { scanned, fanned } = work.behind ? await fanOut() : { scanned: 0, fanned: 0 };
    const token = randomUUID();
    const at = now();
    const claimed =
      work.behind || work.due
        ? await db.write((ex) => deliveries.claim(ex, at, concurrency * 4, at + LEASE, token))
        : [];
    let delivered = 0;
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const d = claimed[next++]!;
        if (await attempt(d, token)) delivered++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    return { scanned, fanned, attempted: claimed.length, delivered };
  }

  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((done) => {
      const timer = setTimeout(done, ms);
      wake = () => {
        clearTimeout(timer);
        done();
      };
    });

  return {
    runOnce,
    start() {
      if (running) return;
      running = true;
      loop = (async () => {
        while (running) {
          let busy = false;
          try {
            const stats = await runOnce();
            busy = stats.scanned + stats.attempted > 0;
          } catch (error) {
            options.log?.warn({ err: error }, 'webhook round failed; will retry');
          }
          if (running) await pause(busy ? 0 : (options.idleMs ?? 1000));
        }
      })();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
