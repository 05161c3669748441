import type { Db, Executor } from '../../db/database.js';
import { microsToIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { groupedWrites, ungrouped, type GroupedWrites } from '../../speed/grouped-writes.js';
import { attemptsRepository as outcomes } from './attempts.repository.js';
import type { DueDelivery } from './deliveries.repository.js';
import { deliveryBody } from './events.service.js';
import { webhooksRepository } from './webhooks.repository.js';
import { isDelivered, sendWebhook, type SendResult } from './webhooks.sender.js';
import { validSecrets } from './webhooks.service.js';
import { signedHeaders } from './webhooks.signing.js';
import type { Resolver, TargetRules } from './webhooks.targets.js';

const SECOND = 1_000_000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;

/** A delivery is retried for this long after it is made (or redelivered), then given up (FAILED). */
export const RETRY_WINDOW = 3 * DAY;
/** An endpoint whose every attempt failed for this long is disabled, with the reason. */
export const DISABLE_AFTER = 5 * DAY;
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

export interface AttemptOptions {
  db: Db;
  now: () => number;
  random: () => number;
  timeoutMs: number;
  rules: TargetRules;
  resolve: Resolver;
  log?: { warn(obj: object, msg: string): void };
  /** DispatcherOptions.outcomeWrites */
  outcomeWrites?: GroupedWrites;
}

/** One attempt of a claimed delivery: whether it delivered, and what `then` answered in its outcome's transaction. */
export type Attempt = <T>(
  d: DueDelivery,
  token: string,
  then: (ex: Executor) => Promise<T>,
) => Promise<{ delivered: boolean; then: T }>;

/**
 * One attempt of a claimed delivery (webhooks.dispatcher.ts claims it): signed and sent, then its outcome written
 * under the claim's token, with the retry schedule, the give-up after RETRY_WINDOW and the endpoint's health (its
 * disabling after DISABLE_AFTER of failures); `then` runs last in the same transaction (the dispatcher hands out the
 * place the attempt frees there, so that a claim costs no commit of its own).
 *
 * On SQLite the outcomes of attempts that end while another group of them commits share one commit (piece
 * `grouped-writes`, src/speed/grouped-writes.ts): each outcome with its `then` is a savepoint of the group's
 * transaction, and its attempt is answered only once that transaction has committed. An outcome's work may
 * therefore run twice (its group's commit failed, and it runs again alone): `then` must start from what it found,
 * as the dispatcher's does. PostgreSQL writes each outcome alone (concurrent groups there would hold row locks of
 * several endpoints and accounts at once).
 */
export function attempter(options: AttemptOptions): Attempt {
  const { db, now, random, timeoutMs, rules, resolve } = options;
  const outcomeWrites =
    options.outcomeWrites ??
    (db.dialect === 'sqlite' ? groupedWrites(db, { maxBatch: 32, concurrency: 1 }) : ungrouped(db));

  async function attempt<T>(
    d: DueDelivery,
    token: string,
    then: (ex: Executor) => Promise<T>,
  ): Promise<{ delivered: boolean; then: T }> {
    const startedAt = now();
    // Named as it starts: the delivery log is newest first by this id, so attempts that overlap are listed in the
    // order they were made, not in the order they ended.
    const attemptId = newId('wha');
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
    const answered = await outcomeWrites.write(async (ex) => {
      await settle(ex, d, token, result, startedAt, attemptId);
      return then(ex);
    });
    return { delivered: isDelivered(result), then: answered };
  }

  async function settle(
    ex: Executor,
    d: DueDelivery,
    token: string,
    result: SendResult,
    attemptedAt: number,
    attemptId: string,
  ): Promise<void> {
    const delivered = isDelivered(result);
    const at = now();
    const attempts = d.attempts + 1;
    const givenUp = !delivered && at - Number(d.retry_from) >= RETRY_WINDOW;
    const { stillOurs, endpoint } = await outcomes.writeOutcome(
      ex,
      {
        account_id: d.account_id,
        attempt_id: attemptId,
        endpoint_id: d.endpoint_id,
        event_id: d.event_id,
        attempted_at: attemptedAt,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        response_excerpt: result.excerpt,
        error: result.error,
        succeeded: delivered ? 1 : 0,
      },
      d,
      token,
      {
        status: delivered ? 'DELIVERED' : givenUp ? 'FAILED' : 'PENDING',
        attempts,
        nextAttemptAt: delivered || givenUp ? at : at + retryDelay(attempts, random),
        now: at,
      },
    );
    // The lease ran out and another process holds the delivery now: the attempt is logged, the endpoint's
    // health is that process's to judge.
    if (!stillOurs || !endpoint) return;
    if (delivered) {
      if (endpoint.failing_since !== null) {
        await outcomes.setEndpoint(ex, d.account_id, d.endpoint_id, { failing_since: null });
      }
      return;
    }
    const since = endpoint.failing_since === null ? at : Number(endpoint.failing_since);
    if (endpoint.status === 'ENABLED' && at - since >= DISABLE_AFTER) {
      const last = result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'no answer');
      await outcomes.setEndpoint(ex, d.account_id, d.endpoint_id, {
        status: 'DISABLED',
        disabled_at: at,
        updated_at: at,
        disabled_reason: `Every delivery attempt failed for ${Math.round((at - since) / DAY)} days (since ${microsToIso(since)}); the last one: ${last}. Fix the endpoint, then enable it again (PUT status ENABLED) and redeliver what it missed.`,
      });
      await webhooksRepository.setWaiting(ex, d.account_id, d.endpoint_id, 'PENDING', 'PAUSED', at);
      options.log?.warn({ account_id: d.account_id, webhook_id: d.endpoint_id }, 'webhook endpoint disabled');
    } else if (endpoint.failing_since === null) {
      await outcomes.setEndpoint(ex, d.account_id, d.endpoint_id, { failing_since: at });
    }
  }

  return attempt;
}
