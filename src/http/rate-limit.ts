import type { FastifyInstance, FastifyReply } from 'fastify';
import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import { errors } from '../errors.js';

/**
 * Fixed-window rate limit per client (and, on the token endpoint, per address). Headers follow the IETF
 * draft "RateLimit header fields for HTTP": `RateLimit-Policy: "default";q=<max>;w=<window>` and
 * `RateLimit: "default";r=<remaining>;t=<seconds to reset>`; over the limit → 429 RATE_LIMITED with
 * Retry-After.
 */
export interface RateLimitStore {
  /** Counts one hit for `key` in the window that contains now; returns the count and seconds to reset. */
  hit(key: string, windowSeconds: number): Promise<{ count: number; resetSeconds: number }>;
  close(): Promise<void>;
}

export function memoryStore(): RateLimitStore {
  const windows = new Map<string, { window: number; count: number }>();
  return {
    async hit(key, windowSeconds) {
      const now = Date.now();
      const window = Math.floor(now / (windowSeconds * 1000));
      let entry = windows.get(key);
      if (!entry || entry.window !== window) {
        if (windows.size > 100_000) for (const [k, v] of windows) if (v.window !== window) windows.delete(k);
        entry = { window, count: 0 };
        windows.set(key, entry);
      }
      entry.count += 1;
      return { count: entry.count, resetSeconds: Math.ceil(((window + 1) * windowSeconds * 1000 - now) / 1000) };
    },
    async close() {},
  };
}

/** Shared by every process that uses the same Redis. */
export function redisStore(url: string): RateLimitStore {
  // Loaded on first use: without REDIS_URL the service does not pay for the client at start-up.
  const { Redis }: { Redis: typeof RedisClient } = createRequire(import.meta.url)('ioredis');
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  redis.on('error', () => {}); // reported per request below; reconnects by itself
  // Without an offline queue a command fails at once while the first connection is still being made, and
  // the limiter would fail open for every request served just after start. So the first connection is
  // awaited (briefly); a lost connection later still fails fast.
  const firstReady = new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  const ready = async (): Promise<void> => {
    if (redis.status === 'ready' || !['wait', 'connecting', 'connect'].includes(redis.status)) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000)));
    await Promise.race([firstReady, timeout]);
    clearTimeout(timer);
  };
  return {
    async hit(key, windowSeconds) {
      await ready();
      const now = Date.now();
      const window = Math.floor(now / (windowSeconds * 1000));
      const redisKey = `svc:rl:${key}:${window}`;
      const result = await redis
        .multi()
        .incr(redisKey)
        .pexpire(redisKey, windowSeconds * 1000 + 1000)
        .exec();
      const count = Number(result?.[0]?.[1] ?? 0);
      return { count, resetSeconds: Math.ceil(((window + 1) * windowSeconds * 1000 - now) / 1000) };
    },
    async close() {
      redis.disconnect();
    },
  };
}

export interface Limiter {
  readonly max: number;
  readonly windowSeconds: number;
  /** Counts the hit, sets the headers, throws RATE_LIMITED when over. */
  check(reply: FastifyReply, key: string): Promise<void>;
}

export function createLimiter(store: RateLimitStore, max: number, windowSeconds: number, policy = 'default'): Limiter {
  return {
    max,
    windowSeconds,
    async check(reply, key) {
      if (max === 0) return;
      let outcome: { count: number; resetSeconds: number };
      try {
        outcome = await store.hit(key, windowSeconds);
      } catch (error) {
        // A rate-limit store outage must not take the API down with it: fail open, and say so.
        reply.request.log.warn({ err: error }, 'rate limit store unavailable; request not counted');
        return;
      }
      const remaining = Math.max(0, max - outcome.count);
      reply.header('ratelimit-policy', `"${policy}";q=${max};w=${windowSeconds}`);
      reply.header('ratelimit', `"${policy}";r=${remaining};t=${outcome.resetSeconds}`);
      if (outcome.count > max) throw errors.rateLimited(outcome.resetSeconds);
    },
  };
}

/** onRequest, after authentication: one budget per client. */
export function registerClientRateLimit(app: FastifyInstance, limiter: Limiter): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.auth) return done();
    limiter.check(reply, `client:${request.auth.clientId}`).then(() => done(), done);
  });
}
