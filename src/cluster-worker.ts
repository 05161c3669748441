import cluster, { type Worker } from 'node:cluster';
import type { Registry } from 'prom-client';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

/**
 * The worker's side of src/cluster.ts: questions to the primary over the cluster's IPC channel, answered by
 * what the primary keeps for the whole set (the aggregated metrics, the rate-limit counters without Redis).
 */

export type Question = { what: 'metrics' } | { what: 'rate-limit'; key: string; timeWindow: number; max: number };
export interface Ask {
  svc: 'ask';
  id: number;
  question: Question;
}
export type Answer = { svc: 'answer'; id: number; value: unknown } | { svc: 'answer'; id: number; error: string };

const ASK_TIMEOUT_MS = 5000;

export const isClusterWorker = (): boolean => cluster.isWorker;

/** This worker's place in the set (0 .. WORKERS-1; a replacement takes the place of the worker it replaces). */
export function workerSlot(): number {
  return Number(process.env.SVC_WORKER_SLOT ?? '0');
}

const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
let lastId = 0;
let listening = false;

function isAnswer(message: unknown): message is Answer {
  return typeof message === 'object' && message !== null && 'svc' in message && message.svc === 'answer';
}

/** A worker's question (the primary's side of the channel). */
export function isAsk(message: unknown): message is Ask {
  return (
    typeof message === 'object' &&
    message !== null &&
    'svc' in message &&
    message.svc === 'ask' &&
    'id' in message &&
    typeof message.id === 'number' &&
    'question' in message &&
    typeof message.question === 'object' &&
    message.question !== null
  );
}

function ask(question: Question): Promise<unknown> {
  if (!listening) {
    listening = true;
    process.on('message', (message: unknown) => {
      if (!isAnswer(message)) return;
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if ('error' in message) pending?.reject(new Error(message.error));
      else pending?.resolve(message.value);
    });
  }
  const id = ++lastId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the cluster's primary did not answer (${question.what})`));
    }, ASK_TIMEOUT_MS);
    timer.unref();
    waiting.set(id, {
      resolve: (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      reject: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
    const message: Ask = { svc: 'ask', id, question };
    const failed = (error: Error | null) => {
      if (error === null) return;
      waiting.delete(id);
      clearTimeout(timer);
      reject(error);
    };
    if (process.send) process.send(message, undefined, {}, failed);
    else failed(new Error('no channel to the cluster primary'));
  });
}

/** The primary's request for a worker's metrics, and the worker's answer (its registry as JSON). */
export interface Collect {
  svc: 'collect';
  id: number;
}
export interface Collected {
  svc: 'collected';
  id: number;
  metrics: unknown[];
}

export function isCollected(message: unknown): message is Collected {
  return (
    typeof message === 'object' &&
    message !== null &&
    'svc' in message &&
    message.svc === 'collected' &&
    'metrics' in message &&
    Array.isArray(message.metrics)
  );
}

/**
 * Answers the primary's requests for `local` (this worker's share of the set's metrics) and returns the text of
 * the whole set, which the primary aggregates from the workers that answer.
 */
export function clusterMetrics(local: Registry): () => Promise<string> {
  process.on('message', (message: unknown) => {
    if (typeof message !== 'object' || message === null || !('svc' in message) || message.svc !== 'collect') return;
    if (!('id' in message) || typeof message.id !== 'number') return;
    const id = message.id;
    void local.getMetricsAsJSON().then((metrics) => {
      const answer: Collected = { svc: 'collected', id, metrics };
      process.send?.(answer);
    });
  });
  return async () => {
    const text = await ask({ what: 'metrics' });
    if (typeof text !== 'string') throw new Error('the cluster primary sent no metrics');
    return text;
  };
}

/** Without Redis: the counters live in the primary, so the set of workers spends one budget per client. */
class PrimaryCounterStore implements FastifyRateLimitStore {
  incr(
    key: string,
    callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
    timeWindow: number,
    max: number,
  ): void {
    ask({ what: 'rate-limit', key, timeWindow, max }).then((value) => {
      if (
        typeof value === 'object' &&
        value !== null &&
        'current' in value &&
        'ttl' in value &&
        typeof value.current === 'number' &&
        typeof value.ttl === 'number'
      ) {
        callback(null, { current: value.current, ttl: value.ttl });
      } else callback(new Error('the cluster primary sent no rate-limit count'));
    }, callback);
  }

  // Every limit's keys carry their policy (http/rate-limit.ts): one store serves them all.
  child(): FastifyRateLimitStore {
    return this;
  }
}

export const primaryRateLimitStore: FastifyRateLimitStoreCtor = PrimaryCounterStore;

/** What a worker tells the primary, and the primary worker 0, when a worker has committed account events. */
const EVENTS_RUNG = { svc: 'events' } as const;

export function isEventsRung(message: unknown): boolean {
  return typeof message === 'object' && message !== null && 'svc' in message && message.svc === 'events';
}

/**
 * A worker without the webhook dispatcher (SQLite, WORKERS > 1): tells the primary when this worker has committed
 * events, at most once a turn of its event loop; the primary passes it to worker 0, whose dispatcher wakes
 * (hearRelayedEvents). On PostgreSQL every process's commits notify the dispatcher themselves (events.bell.ts).
 * Answers how to stop.
 */
export function relayEventsToPrimary(listen: (then: () => void) => () => void): () => void {
  let queued = false;
  return listen(() => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      // A worker whose primary is gone has no one to tell: the dispatcher's next look finds the events.
      if (process.connected) process.send?.(EVENTS_RUNG, undefined, {}, () => undefined);
    });
  });
}

/** Worker 0: runs `then` whenever the primary passes on another worker's events. Answers how to stop. */
export function hearRelayedEvents(then: () => void): () => void {
  const heard = (message: unknown) => {
    if (isEventsRung(message)) then();
  };
  process.on('message', heard);
  return () => void process.off('message', heard);
}

/** The primary: passes a worker's events on to worker 0 (`zero`: the worker in slot 0 now, if any). */
export function passEventsOn(zero: Worker | null): void {
  // With a callback: a worker that died since the check fails this send, not the primary (an 'error' unhandled).
  if (zero?.isConnected()) zero.send(EVENTS_RUNG, undefined, {}, () => undefined);
}
