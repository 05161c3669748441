import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { Api } from '../support/api.js';
import { describeEachDialect } from '../support/context.js';
import { storedFields, storedKeys } from '../support/stored.js';

const WINDOW = '3600';

describeEachDialect(
  'rate limit (memory)',
  (t) => {
    it('answers the 4th request in a window 429 RATE_LIMITED with Retry-After and RateLimit headers', async () => {
      const api = await t.ctx.as(['fields.write']);
      for (let i = 0; i < 3; i++) {
        const res = await api.get('/v1/fields');
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit-policy']).toBe(`"default";q=3;w=${WINDOW}`);
        expect(res.headers['ratelimit']).toMatch(new RegExp(`^"default";r=${2 - i};t=\\d+$`));
      }
      const limited = await api.create('/v1/fields', { name: 'X', group: 'USER' });
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({
        error_code: 'RATE_LIMITED',
        message: 'Too many requests. Retry after the time in Retry-After.',
        details: null,
        request_id: limited.headers['x-request-id'],
      });
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(Number(WINDOW));
      expect(limited.headers['ratelimit-policy']).toBe(`"default";q=3;w=${WINDOW}`);
      expect(limited.headers['ratelimit']).toBe(`"default";r=0;t=${retryAfter}`);
      // nothing was done, nothing stored under the key
      expect(await storedFields(t.ctx, api.accountId)).toEqual([]);
      expect(await storedKeys(t.ctx, api.clientId)).toEqual([]);

      const neighbour = await t.ctx.as(['fields.read'], api.accountId);
      expect((await neighbour.get('/v1/fields')).status).toBe(200);
    });

    it('does not count public endpoints or unauthenticated requests against a client', async () => {
      const api = await t.ctx.as(['fields.read']);
      for (let i = 0; i < 5; i++)
        expect((await t.ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      for (let i = 0; i < 3; i++) expect((await api.get('/v1/fields')).status).toBe(200);
    });
  },
  { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: WINDOW },
);

// A window length of its own per run keeps this test's Redis keys apart (keys also carry the new client id).
const redisEnv: Record<string, string> = {
  RATE_LIMIT_MAX: '3',
  RATE_LIMIT_WINDOW_SECONDS: String(86_000 + (randomBytes(1)[0]! % 200)),
  REDIS_URL: 'redis://127.0.0.1:6379',
};

describeEachDialect(
  'rate limit (Redis, shared by two apps)',
  (t) => {
    it('spends one budget across both app instances', async () => {
      const api = await t.ctx.as(['fields.read']);
      const other = new Api(await t.ctx.secondApp(redisEnv), api.token, api.accountId, api.clientId);
      const statuses = [];
      for (const caller of [api, other, api, other]) statuses.push((await caller.get('/v1/fields')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await other.get('/v1/fields');
      expect(limited.body.error_code).toBe('RATE_LIMITED');
      expect(limited.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);
      // another client has its own budget in Redis too
      const neighbour = await t.ctx.as(['fields.read'], api.accountId);
      expect((await neighbour.get('/v1/fields')).status).toBe(200);
    });
  },
  redisEnv,
);
