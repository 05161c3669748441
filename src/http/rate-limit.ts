import fastifyRateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import { errors } from '../errors.js';

/**
 * Rate limits, counted by @fastify/rate-limit's stores: in this process's memory, in Redis when REDIS_URL is set
 * (shared by every node, and kept across restarts), or — in a cluster worker without Redis — in the primary, so the
 * workers of one machine spend one budget (src/cluster-worker.ts). Each limit's key is built from what the request
 * *is* (its client, its address, the matched route's config), never from the raw URL.
 *
 * Headers follow the IETF draft "RateLimit header fields for HTTP": `RateLimit-Policy: "<policy>";q=<max>;w=<window>`
 * and `RateLimit: "<policy>";r=<remaining>;t=<seconds to reset>`; over the limit → 429 RATE_LIMITED with
 * Retry-After. A window starts with its first request.
 */
export interface Limiter {
  readonly max: number;
  readonly windowSeconds: number;
  /** Counts the request under `key`, sets the headers, throws RATE_LIMITED when over. */
  check(request: FastifyRequest, reply: FastifyReply, key: string): Promise<void>;
}

export interface RateLimits {
  /** Every authenticated API request, per client. */
  client: Limiter;
  /** POST /oauth2/token, per address (against secret guessing). */
  token: Limiter;
  /** Console sign-in and password links, per address (each runs argon2): the routes whose config says `signIn`. */
  signIn: Limiter;
}

interface Windows {
  rateLimitMax: number;
  tokenRateLimitMax: number;
  signInRateLimitMax: number;
  rateLimitWindowSeconds: number;
  redisUrl: string | null;
}

type LocalStoreCtor = new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache: number,
) => FastifyRateLimitStore;

/** How many keys the in-memory store keeps (least recently used go first). */
const MEMORY_KEYS = 100_000;

/** A Redis connection for the counters; the first connection is awaited (briefly) before a count. */
function redisConnection(url: string): { redis: RedisClient; ready: () => Promise<void> } {
  // Loaded on first use: without REDIS_URL the service does not pay for the client at start-up.
  const { Redis }: { Redis: typeof RedisClient } = createRequire(import.meta.url)('ioredis');
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  redis.on('error', () => {}); // reported per request (the limiter fails open); reconnects by itself
  // Without an offline queue a command fails at once while the first connection is still being made, and the
  // limiter would fail open for every request served just after start. A lost connection later still fails fast.
  const firstReady = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  return {
    redis,
    async ready() {
      if (redis.status === 'ready' || !['wait', 'connecting', 'connect'].includes(redis.status)) return;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)));
      await Promise.race([firstReady, timeout]);
      clearTimeout(timer);
    },
  };
}

/**
 * Registers @fastify/rate-limit (no global hook: each limit below is asked where it applies) and returns the three
 * limits. `store` replaces the in-memory counters (a cluster worker's, kept by the primary); Redis wins over both.
 */
export async function registerRateLimits(
  app: FastifyInstance,
  config: Windows,
  store?: FastifyRateLimitStoreCtor,
): Promise<RateLimits> {
  const connection = config.redisUrl ? redisConnection(config.redisUrl) : null;
  await app.register(fastifyRateLimit, {
    global: false,
    cache: MEMORY_KEYS,
    // A failing store is reported below and the request goes on (fail open): an outage of Redis must not take the
    // API down with it.
    skipOnError: false,
    // The window's length is in the namespace: counters of another window length (a changed setting) start afresh.
    ...(connection
      ? { redis: connection.redis, nameSpace: `svc:rl:w${config.rateLimitWindowSeconds}:` }
      : store
        ? { store }
        : {}),
  });
  if (connection) app.addHook('onClose', async () => connection.redis.disconnect());

  const limiter = (policy: string, max: number): Limiter => {
    const windowSeconds = config.rateLimitWindowSeconds;
    const count = app.createRateLimit({
      max,
      timeWindow: windowSeconds * 1000,
      keyGenerator: (request) => keys.get(request) ?? '',
    });
    // createRateLimit asks its keyGenerator for the key; the caller gives it with the request.
    const keys = new WeakMap<FastifyRequest, string>();
    return {
      max,
      windowSeconds,
      async check(request, reply, key) {
        if (max === 0) return;
        keys.set(request, `${policy}:${key}`);
        let outcome: Awaited<ReturnType<typeof count>>;
        try {
          await connection?.ready();
          outcome = await count(request);
        } catch (error) {
          request.log.warn({ err: error, policy }, 'rate limit store unavailable; request not counted');
          return;
        }
        if (outcome.isAllowed) return;
        const remaining = outcome.isExceeded ? 0 : outcome.remaining;
        void reply.header('ratelimit-policy', `"${policy}";q=${max};w=${windowSeconds}`);
        void reply.header('ratelimit', `"${policy}";r=${remaining};t=${outcome.ttlInSeconds}`);
        if (outcome.isExceeded) throw errors.rateLimited(Math.max(1, outcome.ttlInSeconds));
      },
    };
  };
  return {
    client: limiter('default', config.rateLimitMax),
    token: limiter('token', config.tokenRateLimitMax),
    signIn: limiter('sign-in', config.signInRateLimitMax),
  };
}

/** onRequest, after authentication: one budget per client. */
export function registerClientRateLimit(app: FastifyInstance, limiter: Limiter): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.auth) return done();
    limiter.check(request, reply, `client:${request.auth.clientId}`).then(() => done(), done);
  });
}

/**
 * onRequest: the sign-in budget per client address, for every route whose config says `signIn` (the router has
 * matched the route, however its path was spelt: `/%61uth/session` is /auth/session and counts as it).
 */
export function registerSignInRateLimit(app: FastifyInstance, limiter: Limiter): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.config.signIn !== true) return done();
    limiter.check(request, reply, `ip:${request.ip}`).then(() => done(), done);
  });
}

/** The cluster primary's counters for its workers: @fastify/rate-limit's own in-memory store, asked over IPC. */
export function memoryCounters(): {
  incr(key: string, timeWindow: number, max: number): Promise<{ current: number; ttl: number }>;
} {
  // The plugin's store, outside a Fastify instance: the primary serves no requests.
  const LocalStore: LocalStoreCtor = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js');
  const store = new LocalStore(false, false, MEMORY_KEYS);
  return {
    incr: (key, timeWindow, max) =>
      new Promise((resolve, reject) =>
        store.incr(
          key,
          (error, result) => (error || !result ? reject(error ?? new Error('no count')) : resolve(result)),
          timeWindow,
          max,
        ),
      ),
  };
}
