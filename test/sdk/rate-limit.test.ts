import { describe, expect, it } from 'vitest';
import { SvcClient, SvcRateLimitError } from '../../client/src/index.js';
import { until } from '../support/wait.js';
import { describeLive } from './live-server.js';
import { scriptedFetch, steppedClock } from './time.js';

/** Jitter at its middle: a wait the server asked for is lengthened by 5 %. */
const random = () => 0.5;

describeLive(
  'SDK: one rate-limit budget for all the calls of a client',
  (s) => {
    it('holds new calls until the window the RateLimit header announced ends, instead of sending them to a 429', async () => {
      const { clientId, clientSecret } = await s.live.credentials(['fields.read']);
      const clock = steppedClock({ date: true });
      const statuses: number[] = [];
      const client = new SvcClient({
        ...{ baseUrl: s.live.url, clientId, clientSecret, random, now: clock.now, sleep: clock.sleep },
        onResponse: ({ path, status }) => void (path === '/v1/fields' && statuses.push(status)),
      });
      // 2 requests per 1 s window: these two spend it (RateLimit: "default";r=0;t=1).
      for (let i = 0; i < 2; i++) await client.fields.list();
      expect(clock.sleeps).toEqual([]);

      const three = Promise.all([1, 2, 3].map(() => client.fields.list()));
      await until('the three calls waiting', () => clock.waiting() === 3);
      expect(statuses).toEqual([200, 200]);
      // The window ends; the first two go in the next one, and the third waits for the one after.
      clock.advance();
      await until('two answers and one more wait', () => statuses.length === 4 && clock.waiting() === 1);
      clock.advance();
      expect((await three).map((page) => page.items)).toEqual([[], [], []]);
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      expect(clock.sleeps).toEqual([1050, 1050, 1050, 1050]);
    });

    it('retries a 429 after its Retry-After (with jitter), and counts the retry against the next window', async () => {
      const { clientId, clientSecret } = await s.live.credentials(['fields.read']);
      const clock = steppedClock({ date: true });
      const retries: unknown[] = [];
      const client = new SvcClient({
        ...{ baseUrl: s.live.url, clientId, clientSecret, random, now: clock.now, sleep: clock.sleep },
        onRetry: ({ attempt, status, error, delayMs }) => void retries.push({ attempt, status, error, delayMs }),
      });
      // Another client of the same credentials spends the window: this one has heard nothing of it yet.
      const other = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret, maxRetries: 0 });
      for (let i = 0; i < 2; i++) await other.fields.list();

      const page = client.fields.list();
      await until('the retry waiting', () => clock.waiting() === 1);
      expect(retries).toEqual([{ attempt: 1, status: 429, error: expect.any(SvcRateLimitError), delayMs: 1050 }]);
      expect(retries[0]).toMatchObject({ error: { error_code: 'RATE_LIMITED', retry_after_seconds: 1 } });
      // Meanwhile a new call of the same client waits for the same end instead of being refused too.
      const second = client.fields.list();
      await until('the second call waiting', () => clock.waiting() === 2);
      clock.advance();
      expect([(await page).items, (await second).items]).toEqual([[], []]);
      expect(clock.sleeps).toEqual([1050, 1050]);
      expect(retries).toHaveLength(1);
    });

    it('without retries, the 429 of a spent window reaches the caller as SvcRateLimitError', async () => {
      const { clientId, clientSecret } = await s.live.credentials(['fields.read']);
      const impatient = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret, maxRetries: 0 });
      steppedClock({ date: true }); // Date stands still: the window cannot end between the three
      // Three at once, before any answer told the client of the budget: two spend it and one is refused.
      const answers = await Promise.all([1, 2, 3].map(() => impatient.fields.list().catch((e: unknown) => e)));
      const refused = answers.filter((a) => a instanceof Error);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toBeInstanceOf(SvcRateLimitError);
      expect(refused[0]).toMatchObject({ status: 429, error_code: 'RATE_LIMITED', retry_after_seconds: 1 });
    });
  },
  { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '1' },
);

describe('SDK: RateLimit and Retry-After, header by header', () => {
  const list = (fetch: typeof globalThis.fetch, clock: ReturnType<typeof steppedClock>, more = {}) =>
    new SvcClient({
      baseUrl: 'http://svc.test',
      token: 't',
      fetch,
      random,
      now: clock.now,
      sleep: clock.sleep,
      ...more,
    });

  it('waits for the most distant reset of the spent policies among several, quoted or not', async () => {
    const clock = steppedClock();
    const { fetch, requests } = scriptedFetch([
      { status: 200, headers: { ratelimit: '"default";r=0;t=2, burst;r=0;t=4, "hourly";r=9;t=3000' } },
      { status: 200 },
    ]);
    const client = list(fetch, clock);
    await client.fields.list();
    const next = client.fields.list();
    await until('the wait', () => clock.waiting() === 1);
    expect(requests).toHaveLength(1);
    clock.advance();
    await next;
    expect(clock.sleeps).toEqual([4200]);
    expect(requests).toHaveLength(2);
  });

  it('a new window holds RateLimit-Policy q requests: the next ones wait for it to end', async () => {
    const clock = steppedClock();
    const { fetch, requests } = scriptedFetch(
      Array.from({ length: 4 }, (_, i) => ({
        status: 200,
        headers: i === 0 ? { ratelimit: '"default";r=0;t=1', 'ratelimit-policy': '"default";q=2;w=10' } : undefined,
      })),
    );
    const client = list(fetch, clock);
    await client.fields.list();
    const three = Promise.all([1, 2, 3].map(() => client.fields.list()));
    await until('three waiting', () => clock.waiting() === 3);
    clock.advance(); // the window of the first answer ends; the next holds 2
    await until('the third waiting for the next window', () => requests.length === 3 && clock.waiting() === 1);
    clock.advance();
    await three;
    expect(clock.sleeps).toEqual([1050, 1050, 1050, 10_500]);
  });

  it('keeps the lowest remaining among answers of one window, whatever order they arrive in', async () => {
    const clock = steppedClock();
    // Two calls at once; svc counted the second one first, so the answer that arrives last says more remains.
    const { fetch, requests } = scriptedFetch([
      { status: 200, headers: { ratelimit: '"default";r=0;t=5' } },
      { status: 200, headers: { ratelimit: '"default";r=1;t=5' } },
      { status: 200 },
    ]);
    const client = list(fetch, clock);
    await Promise.all([client.fields.list(), client.fields.list()]);
    const third = client.fields.list();
    await until('the third waiting', () => clock.waiting() === 1);
    expect(requests).toHaveLength(2);
    clock.advance();
    await third;
    expect(clock.sleeps).toEqual([5250]);
  });

  it('honours a Retry-After given as an HTTP date, on a 503 too', async () => {
    const clock = steppedClock();
    const start = clock.now();
    const at = new Date(Math.ceil(start / 1000) * 1000 + 3000);
    const wait = at.getTime() - start;
    const { fetch, requests } = scriptedFetch([
      { status: 503, headers: { 'retry-after': at.toUTCString() } },
      { status: 200 },
    ]);
    const page = list(fetch, clock).fields.list();
    await until('the wait', () => clock.waiting() === 1);
    clock.advance();
    await page;
    expect(clock.sleeps).toEqual([wait + 0.5 * wait * 0.1]);
    expect(requests).toHaveLength(2);
  });

  it('does not wait longer than retryMaxDelayMs: the 429 reaches the caller, and later calls fail without a request', async () => {
    const clock = steppedClock();
    const { fetch, requests } = scriptedFetch([{ status: 429, headers: { 'retry-after': '3600' } }]);
    const client = list(fetch, clock, { retryMaxDelayMs: 60_000 });
    const refused = await client.fields.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcRateLimitError);
    expect(refused).toMatchObject({ status: 429, retry_after_seconds: 3600, request_id: null });
    const notSent = await client.fields.list().catch((e: unknown) => e);
    expect(notSent).toBeInstanceOf(SvcRateLimitError);
    expect(notSent).toMatchObject({ status: 429, error_code: 'RATE_LIMITED', retry_after_seconds: 3600 });
    expect(requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("a spent sign-in budget holds the console's sign-ins alone, not the client's other calls", async () => {
    const clock = steppedClock();
    const { fetch, requests } = scriptedFetch([
      { status: 200, headers: { ratelimit: '"sign-in";r=0;t=60' } },
      { status: 200, headers: { ratelimit: '"default";r=5;t=60' } },
    ]);
    const client = list(fetch, clock, { retryMaxDelayMs: 30_000 });
    const credentials = { email: 'ada@example.com', password: 'correct horse battery staple' };
    await client.session.signIn(credentials);
    await client.fields.list();
    expect(clock.sleeps).toEqual([]);
    // The next sign-in would wait 60 s, more than the client waits: refused without a request.
    const refused = await client.session.signIn(credentials).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, error_code: 'RATE_LIMITED', retry_after_seconds: 60 });
    expect(requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([
      'POST /auth/session',
      'GET /v1/fields',
    ]);
  });
});
