import { describe, expect, it } from 'vitest';
import {
  SvcAbortError,
  type SvcApiError,
  SvcClient,
  SvcTimeoutError,
  SvcUnavailableError,
} from '../../client/src/index.js';
import { ADMIN_TOKEN, SANDBOX } from '../support/sandbox.js';
import { until } from '../support/wait.js';
import { describeLive } from './live-server.js';
import { scriptedFetch, steppedClock } from './time.js';

const random = () => 0.5;

/** A fetch that never answers: only its signal ends the request. */
function silentFetch() {
  const requests: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    requests.push(String(input));
    return new Promise((_resolve, reject) => {
      init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
    });
  };
  return { fetch, requests };
}

describeLive(
  "SDK: the caller's AbortSignal",
  (s) => {
    it('aborts a wait before a retry: SvcAbortError with the reason, no second attempt', async () => {
      const operator = new SvcClient({ baseUrl: s.live.url, token: ADMIN_TOKEN });
      const account = await operator.sandbox.createAccount();
      const clock = steppedClock();
      const attempts: number[] = [];
      const client = new SvcClient({
        ...{ baseUrl: s.live.url, clientId: account.client_id, clientSecret: account.client_secret },
        ...{ random, now: clock.now, sleep: clock.sleep },
        onRequest: ({ path, attempt }) => void (path === '/v1/fields' && attempts.push(attempt)),
      });
      await client.fields.list();
      await operator.sandbox.setFault(account.client_id, { kind: '503', count: 1, retry_after: 5 });
      const controller = new AbortController();
      const page = client.fields.list({}, { signal: controller.signal }).catch((e: unknown) => e);
      await until('the wait before the retry', () => clock.waiting() === 1);
      const reason = new Error('the user closed the page');
      controller.abort(reason);

      const error = await page;
      expect(error).toBeInstanceOf(SvcAbortError);
      expect(error).not.toBeInstanceOf(SvcUnavailableError);
      expect(error).toMatchObject({ status: 0, error_code: 'ABORTED', cause: reason, request_id: null });
      expect(attempts).toEqual([1, 1]);
      expect(clock.sleeps).toEqual([5250]);
    });

    it('sends nothing, not even a token request, for a signal aborted already', async () => {
      const { clientId, clientSecret } = await s.live.credentials(['fields.read']);
      const sent: string[] = [];
      const client = new SvcClient({
        ...{ baseUrl: s.live.url, clientId, clientSecret },
        onRequest: ({ path }) => void sent.push(path),
      });
      const error = await client.fields.list({}, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SvcAbortError);
      expect(sent).toEqual([]);
    });
  },
  SANDBOX,
);

describe('SDK: AbortSignal and timeouts, without a server', () => {
  it('aborts the request in flight', async () => {
    const { fetch, requests } = silentFetch();
    const controller = new AbortController();
    const client = new SvcClient({ baseUrl: 'http://svc.test', token: 't', fetch });
    const page = client.fields.list({}, { signal: controller.signal }).catch((e: unknown) => e);
    await until('the request sent', () => requests.length === 1);
    controller.abort();
    expect(await page).toBeInstanceOf(SvcAbortError);
    expect(requests).toHaveLength(1);
  });

  it('aborts a call waiting for the rate-limit budget', async () => {
    const clock = steppedClock();
    const { fetch, requests } = scriptedFetch([{ status: 200, headers: { ratelimit: '"default";r=0;t=10' } }]);
    const client = new SvcClient({ baseUrl: 'http://svc.test', token: 't', fetch, ...clock, random });
    await client.fields.list();
    const controller = new AbortController();
    const page = client.fields.list({}, { signal: controller.signal }).catch((e: unknown) => e);
    await until('the wait for the window', () => clock.waiting() === 1);
    controller.abort();
    expect(await page).toMatchObject({ status: 0, error_code: 'ABORTED' });
    expect(requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([10_500]);
  });

  it("ends the call at its timeoutMs during a wait before a retry: SvcTimeoutError, scope 'call'", async () => {
    // The wait would end only when the test says, and it never does: the call's timeout ends it.
    const clock = steppedClock();
    const { fetch, requests } = scriptedFetch([{ status: 503, headers: { 'retry-after': '10' } }]);
    const client = new SvcClient({ baseUrl: 'http://svc.test', token: 't', fetch, ...clock, random });
    const error = await client.fields.list({}, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcTimeoutError);
    expect(error).toBeInstanceOf(SvcUnavailableError);
    expect(error).toMatchObject({ status: 0, error_code: 'TIMEOUT', scope: 'call', timeout_ms: 50 });
    expect(clock.sleeps).toEqual([10_500]);
    expect(requests).toHaveLength(1);
  });

  it('ends the call at its timeoutMs during an attempt, and does not retry it', async () => {
    const { fetch, requests } = silentFetch();
    const client = new SvcClient({ baseUrl: 'http://svc.test', token: 't', fetch, maxRetries: 3 });
    const error = await client.fields.list({}, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ error_code: 'TIMEOUT', scope: 'call', timeout_ms: 50 });
    expect(requests).toHaveLength(1);
  });

  it("retries an attempt that ran out of the client's timeoutMs, then throws SvcTimeoutError, scope 'attempt'", async () => {
    const clock = steppedClock({ auto: true });
    const { fetch, requests } = silentFetch();
    const retries: unknown[] = [];
    const client = new SvcClient({
      ...{ baseUrl: 'http://svc.test', token: 't', fetch, ...clock, random },
      ...{ timeoutMs: 20, maxRetries: 2, retryBaseDelayMs: 100 },
      onRetry: ({ attempt, status, error, delayMs }) => void retries.push([attempt, status, error.error_code, delayMs]),
    });
    const error = await client.fields.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcTimeoutError);
    expect(error).toMatchObject({ status: 0, error_code: 'TIMEOUT', scope: 'attempt', timeout_ms: 20 });
    expect(requests).toHaveLength(3);
    // Full jitter over 100 ms, then 200 ms.
    expect(retries).toEqual([
      [1, 0, 'TIMEOUT', 50],
      [2, 0, 'TIMEOUT', 100],
    ]);
  });

  it('tells a network failure from a timeout and an abort', async () => {
    const fetch: typeof globalThis.fetch = () => Promise.reject(new TypeError('fetch failed'));
    const client = new SvcClient({ baseUrl: 'http://svc.test', token: 't', fetch, maxRetries: 0 });
    const error = await client.fields.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcUnavailableError);
    expect(error).not.toBeInstanceOf(SvcTimeoutError);
    expect(error).toMatchObject({ status: 0, error_code: 'NETWORK_ERROR' });
    expect((error as SvcApiError).cause).toEqual(new TypeError('fetch failed'));
  });
});
