import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { Api, parseBody } from '../support/api.js';
import { describeEachDialect } from '../support/context.js';
import { storedFields, storedKeys } from '../support/stored.js';
import { errorBody } from '../support/expect.js';

const WINDOW = '3600';
/** The sign-in budget of the spelling test: more than the spellings routed. */
const LIMIT = 40;

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

const SIGN_IN = { email: 'nobody@example.com', password: 'not the password, surely' };

/** A POST over a real socket with the path exactly as written (fetch and inject would normalise it). */
function rawPost(base: string, path: string, body: unknown, ip: string) {
  const text = JSON.stringify(body);
  return new Promise<{ status: number; ratelimit: string | undefined; body: any }>((resolve, reject) => {
    const url = new URL(base);
    const request = http.request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-forwarded-for': ip },
    });
    request.on('response', (res) => {
      let answer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (answer += chunk));
      res.on('end', () => {
        const header = res.headers['ratelimit'];
        resolve({
          status: res.statusCode ?? 0,
          ratelimit: typeof header === 'string' ? header : undefined,
          body: parseBody(answer),
        });
      });
    });
    request.on('error', reject);
    request.end(text);
  });
}

/**
 * Issue 28, finding 2: the sign-in budget was read off the raw URL, so `/%61uth/session` was routed to sign-in and not
 * counted. Over a real socket, each of many spellings is either answered 404 before anything runs, or counted against
 * the one budget of the address, whichever sign-in route it reaches.
 */
describeEachDialect(
  'rate limit: keyed on the matched route, however the path is spelt',
  (t) => {
    let base: string;
    beforeAll(async () => {
      base = await t.ctx.app.listen({ port: 0, host: '127.0.0.1' });
    });
    const remaining = (header: string | undefined) => Number(/r=(\d+)/.exec(String(header))?.[1]);

    it('counts every spelling the router routes to sign-in, and answers the others 404 uncounted', async () => {
      const ip = '198.51.100.23';
      const spellings = [
        '/auth/session',
        '/%61uth/session',
        '/auth/%73ession',
        '/%61%75%74%68/%73%65%73%73%69%6F%6E',
        '/auth/sessio%6e',
        '/auth/session?x=1',
        '/auth/session?',
        '/auth/session#x',
        '/AUTH/session',
        '/auth/session/',
        '//auth/session',
        '/auth//session',
        '/auth/./session',
        '/auth/x/../session',
        '/auth/%2Fsession',
        '/auth/%2fsession',
        '/auth/session;x',
        '/auth/session%20',
        '/auth/session%00',
        '/auth/session%2e',
        '/%2e/auth/session',
        'http://svc.example.com/auth/session',
        '/auth/p%61ssword',
        '/auth/password',
      ];
      let left = LIMIT;
      const routed: string[] = [];
      for (const path of spellings) {
        const body = path.includes('ssword') ? { token: 'svc_pl_x', password: 'a long enough password here' } : SIGN_IN;
        const res = await rawPost(base, path, body, ip);
        // Not routed: 404, or 400 for a path that does not decode; either before anything runs, uncounted.
        if (
          res.status === 404 ||
          (res.status === 400 && String(res.body?.details?.errors?.[0]?.path).startsWith('/params'))
        ) {
          expect({ path, ratelimit: res.ratelimit }).toEqual({ path, ratelimit: undefined });
          continue;
        }
        routed.push(path);
        left -= 1;
        // The route ran (and counted): a wrong password, or — after a few from one address — the sign-in throttle's
        // refusal (docs/console.md), never the budget's own.
        const code = path.includes('ssword')
          ? ['INVALID_PASSWORD_LINK', 'INVALID_REQUEST']
          : ['INVALID_CREDENTIALS', 'SIGN_IN_LOCKED'];
        expect({ path, ran: code.includes(res.body.error_code), left: remaining(res.ratelimit) }).toEqual({
          path,
          ran: true,
          left,
        });
      }
      // The bypass of the finding is among the spellings routed (so this test replays it).
      expect(routed).toContain('/%61uth/session');
      expect(routed).toContain('/auth/%73ession');
      // Spend the rest; then every routed spelling is refused, and another address has its own budget.
      while (left > 0) {
        const res = await rawPost(base, '/%61uth/session', SIGN_IN, ip);
        expect(['INVALID_CREDENTIALS', 'SIGN_IN_LOCKED']).toContain(res.body.error_code);
        left -= 1;
      }
      for (const path of routed) {
        const res = await rawPost(base, path, SIGN_IN, ip);
        expect({ path, status: res.status }).toEqual({ path, status: 429 });
        expect(res.body).toEqual(errorBody('RATE_LIMITED'));
      }
      expect((await rawPost(base, '/%61uth/session', SIGN_IN, '198.51.100.24')).body.error_code).toBe(
        'INVALID_CREDENTIALS',
      );
    });
  },
  { SIGN_IN_RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: WINDOW, TRUST_PROXY: 'loopback' },
);

describeEachDialect(
  'rate limit (Redis): the sign-in budget is shared by the nodes and outlives a restart',
  (t) => {
    it('spends one budget across two apps, and a new app after both closed goes on counting it', async () => {
      const env = { ...redisEnv, SIGN_IN_RATE_LIMIT_MAX: '3' };
      const ip = `203.0.113.${1 + (randomBytes(1)[0]! % 250)}`;
      const first = await t.ctx.secondApp(env);
      const second = await t.ctx.secondApp(env);
      const attempt = (app: typeof first) =>
        app.inject({ method: 'POST', url: '/auth/session', payload: SIGN_IN, remoteAddress: ip });
      expect((await attempt(first)).statusCode).toBe(401);
      expect((await attempt(second)).statusCode).toBe(401);
      await first.close();
      await second.close();
      const restarted = await t.ctx.secondApp(env);
      expect((await attempt(restarted)).statusCode).toBe(401);
      const limited = await attempt(restarted);
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['ratelimit']).toMatch(/^"sign-in";r=0;t=\d+$/);
    });
  },
  redisEnv,
);

/**
 * Issue 28, finding 3: with TRUST_PROXY=true the left-most X-Forwarded-For address, which the client writes, was the
 * client's address, so every per-address limit was one header away from a fresh budget. Now a hop count takes the
 * address the proxy appended, and without TRUST_PROXY the header means nothing.
 */
describeEachDialect('rate limit: the client address behind a proxy', (t) => {
  const attempt = (app: FastifyInstance, forwarded: string) =>
    app.inject({
      method: 'POST',
      url: '/auth/session',
      payload: SIGN_IN,
      remoteAddress: '10.0.0.2',
      headers: { 'x-forwarded-for': forwarded },
    });

  it('takes the address the one trusted proxy appended, whatever the client wrote before it', async () => {
    const app = await t.ctx.secondApp({
      TRUST_PROXY: '1',
      SIGN_IN_RATE_LIMIT_MAX: '2',
      RATE_LIMIT_WINDOW_SECONDS: WINDOW,
    });
    expect((await attempt(app, '6.6.6.6, 203.0.113.9')).statusCode).toBe(401);
    expect((await attempt(app, '7.7.7.7, 203.0.113.9')).statusCode).toBe(401);
    expect((await attempt(app, '8.8.8.8, 203.0.113.9')).statusCode).toBe(429);
    expect((await attempt(app, '6.6.6.6, 203.0.113.10')).statusCode).toBe(401);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY is set', async () => {
    const app = await t.ctx.secondApp({ SIGN_IN_RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: WINDOW });
    expect((await attempt(app, '203.0.113.20')).statusCode).toBe(401);
    expect((await attempt(app, '203.0.113.21')).statusCode).toBe(401);
    expect((await attempt(app, '203.0.113.22')).statusCode).toBe(429);
  });
});
