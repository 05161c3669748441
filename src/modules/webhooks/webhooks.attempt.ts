import type { Db, Executor } from '../../db/database.js';
import { microsToIso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { groupedWrites, ungrouped, type GroupedWrites } from '../../speed/grouped-writes.js';
import { deliveryCommit } from '../../speed/lazy-commit.js';
import { statementGroups, type StatementGroups } from '../../speed/statement-groups.js';
import { isOn } from '../../speed/switches.js';
import { attemptsRepository as outcomes, type OutcomeRow, type OutcomeWritten } from './attempts.repository.js';
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
  /** DispatcherOptions.outcomeGroups */
  outcomeGroups?: (groups: StatementGroups<Ended>) => StatementGroups<Ended>;
}

/**
 * One attempt of a claimed delivery: whether it delivered, and what `then` answered in its outcome's transaction.
 * `freed`, when given, runs in that transaction before `then` (with every other `freed` of its group first, when
 * outcomes are written as a group).
 */
export type Attempt = <T>(
  d: DueDelivery,
  token: string,
  then: (ex: Executor) => Promise<T>,
  freed?: () => void,
) => Promise<{ delivered: boolean; then: T }>;

/** An attempt that has ended: what its outcome is written from. */
export interface Ended {
  d: DueDelivery;
  token: string;
  result: SendResult;
  attemptedAt: number;
  attemptId: string;
}

/** An endpoint's health as a group's outcomes leave it, by endpoint: each outcome judges it as the one before left it. */
type Health = Map<string, OutcomeWritten['endpoint']>;
const keyOf = (e: Ended) => `${e.d.account_id}\u0000${e.d.endpoint_id}`;

/**
 * One attempt of a claimed delivery (webhooks.dispatcher.ts claims it): signed and sent, then its outcome written
 * under the claim's token, with the retry schedule, the give-up after RETRY_WINDOW and the endpoint's health (its
 * disabling after DISABLE_AFTER of failures); `then` runs last in the same transaction (the dispatcher hands out the
 * place the attempt frees there, so that a claim costs no commit of its own).
 *
 * Outcomes of attempts that end while others are written share one transaction (piece `grouped-outcomes`,
 * src/speed/statement-groups.ts): the group's outcomes are written together (PostgreSQL: one statement; SQLite: each
 * one's statements, which are calls), then their places freed, then each `then` runs (the first claims for all the
 * freed places, the others read nothing more), and each attempt is answered once the group has committed. On
 * PostgreSQL two groups at a time, a few round trips each whatever its size, where each outcome alone took six;
 * concurrent groups settle distinct deliveries and judge their endpoints in key order, and a group that disables
 * an endpoint pauses only the deliveries no attempt holds (`pauseWaiting`), never one another group has settled and
 * still holds locked (that group's retry pauses itself, below), so no two groups wait for each other. A group that
 * fails anyway (a constraint, a lock PostgreSQL broke) is logged and its outcomes are written alone. On SQLite one
 * at a time (its one connection). With the piece off: on SQLite each outcome with its `then` a savepoint of a group's
 * transaction (`grouped-writes`, src/speed/grouped-writes.ts), on PostgreSQL each alone.
 * Either way an outcome's work may run twice (its group's commit failed, and it runs again alone): `then` must start
 * from what it found, as the dispatcher's does.
 */
export function attempter(options: AttemptOptions): Attempt {
  const { db, now, random, timeoutMs, rules, resolve } = options;
  const write = outcomeWriter();

  function outcomeWriter(): <T>(e: Ended, then: (ex: Executor) => Promise<T>, freed?: () => void) => Promise<T> {
    const grouped =
      options.outcomeGroups !== undefined || (options.outcomeWrites === undefined && isOn('grouped-outcomes'));
    if (grouped) {
      const groups = statementGroups<Ended>(db, {
        settleAll,
        maxBatch: 32,
        concurrency: db.dialect === 'sqlite' ? 1 : 2,
        commit: deliveryCommit(),
        failed: (error, size) =>
          options.log?.warn(
            { err: error, outcomes: size },
            'webhook outcomes not written as a group; writing each alone',
          ),
      });
      const used = options.outcomeGroups?.(groups) ?? groups;
      return (e, then, freed) => used.write(e, then, freed);
    }
    const writes =
      options.outcomeWrites ??
      (db.dialect === 'sqlite' ? groupedWrites(db, { maxBatch: 32, concurrency: 1 }) : ungrouped(db));
    return (e, then) =>
      writes.write(async (ex) => {
        await settleAll(ex, [e]);
        return then(ex);
      });
  }

  async function attempt<T>(
    d: DueDelivery,
    token: string,
    then: (ex: Executor) => Promise<T>,
    freed?: () => void,
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
    const answered = await write({ d, token, result, attemptedAt: startedAt, attemptId }, then, freed);
    return { delivered: isDelivered(result), then: answered };
  }

  /** The outcomes of `ended`, written together, then each endpoint's health judged, in key order. */
  async function settleAll(ex: Executor, ended: readonly Ended[]): Promise<void> {
    const at = now();
    const rows = ended.map((e) => outcomeRow(e, at));
    const written = await outcomes.writeOutcomes(ex, rows);
    const health: Health = new Map();
    const order = ended.map((_, i) => i).sort((a, b) => compare(keyOf(ended[a]!), keyOf(ended[b]!)) || a - b);
    for (const i of order) await judge(ex, ended[i]!, rows[i]!.outcome.status, at, written[i]!, health);
  }

  function outcomeRow(e: Ended, at: number): OutcomeRow {
    const { d, result } = e;
    const delivered = isDelivered(result);
    const attempts = d.attempts + 1;
    const givenUp = !delivered && at - Number(d.retry_from) >= RETRY_WINDOW;
    return {
      attempt: {
        account_id: d.account_id,
        attempt_id: e.attemptId,
        endpoint_id: d.endpoint_id,
        event_id: d.event_id,
        attempted_at: e.attemptedAt,
        status_code: result.statusCode,
        latency_ms: result.latencyMs,
        response_excerpt: result.excerpt,
        error: result.error,
        succeeded: delivered ? 1 : 0,
      },
      delivery: { account_id: d.account_id, delivery_id: d.delivery_id },
      token: e.token,
      outcome: {
        status: delivered ? 'DELIVERED' : givenUp ? 'FAILED' : 'PENDING',
        attempts,
        nextAttemptAt: delivered || givenUp ? at : at + retryDelay(attempts, random),
        now: at,
      },
    };
  }

  /** The endpoint's health after `e`'s outcome: cleared by a delivery, else failing since, and disabled in time. */
  async function judge(
    ex: Executor,
    e: Ended,
    status: OutcomeRow['outcome']['status'],
    at: number,
    written: OutcomeWritten,
    health: Health,
  ): Promise<void> {
    const { d, result } = e;
    // The lease ran out and another process holds the delivery now: the attempt is logged, the endpoint's
    // health is that process's to judge.
    if (!written.stillOurs) return;
    const key = keyOf(e);
    const endpoint = health.has(key) ? health.get(key) : written.endpoint;
    if (!endpoint) return;
    // Disabled while the attempt was under way (its claim kept the delivery from pausing with the others): a retry
    // waits for the endpoint, as they do.
    if (status === 'PENDING' && endpoint.status === 'DISABLED') await outcomes.pause(ex, d, at);
    if (isDelivered(result)) {
      if (endpoint.failing_since !== null) {
        await outcomes.setEndpoint(ex, d.account_id, d.endpoint_id, { failing_since: null });
        health.set(key, { ...endpoint, failing_since: null });
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
      await webhooksRepository.pauseWaiting(ex, d.account_id, d.endpoint_id, at);
      health.set(key, { status: 'DISABLED', failing_since: since });
      options.log?.warn({ account_id: d.account_id, webhook_id: d.endpoint_id }, 'webhook endpoint disabled');
    } else if (endpoint.failing_since === null) {
      await outcomes.setEndpoint(ex, d.account_id, d.endpoint_id, { failing_since: at });
      health.set(key, { ...endpoint, failing_since: at });
    }
  }

  return attempt;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
