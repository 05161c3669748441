import { onTestFinished, vi } from 'vitest';

/**
 * The SDK's time, taken over by a test: `now` and `sleep` for SvcClient's options. The client never waits for a
 * real timer; each wait is recorded in `sleeps`.
 */
export interface TestTime {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Every wait the client asked for, in ms, in order. */
  sleeps: number[];
}

/**
 * A clock that moves only when the test says: `advance()` moves it to the end of the earliest wait the client asked
 * for and ends every wait due by then (waits begun at one time end together, as concurrent calls' do). `date`
 * makes it JavaScript's Date itself, which the server's rate limiter reads in this process: the server's windows
 * then end exactly when the client's waits do. `auto` advances by itself as soon as a wait begins (for one call at
 * a time).
 */
export function steppedClock({ date = false, auto = false } = {}): TestTime & {
  advance(): void;
  /** Moves the clock on by `ms` (time a request takes, say). */
  pass(ms: number): void;
  waiting: () => number;
} {
  let time = Date.now();
  if (date) {
    vi.useFakeTimers({ toFake: ['Date'], now: time });
    onTestFinished(() => void vi.useRealTimers());
  }
  const sleeps: number[] = [];
  let pending: { until: number; resolve: () => void }[] = [];
  const setTime = (ms: number) => {
    time = ms;
    if (date) vi.setSystemTime(time);
  };
  const advance = () => {
    if (pending.length === 0) throw new Error('steppedClock: no wait to end');
    setTime(Math.min(...pending.map((p) => p.until)));
    const due = pending.filter((p) => p.until <= time);
    pending = pending.filter((p) => p.until > time);
    for (const p of due) p.resolve();
  };
  return {
    now: () => time,
    sleeps,
    sleep(ms) {
      sleeps.push(ms);
      const waited = new Promise<void>((resolve) => pending.push({ until: time + ms, resolve }));
      if (auto) queueMicrotask(advance);
      return waited;
    },
    pass: (ms) => setTime(time + ms),
    advance,
    waiting: () => pending.length,
  };
}

/**
 * A fetch that answers from a script, one entry per request, in order (the token endpoint is not asked: give the
 * client a `token`). Each entry is a status and headers; the body is the API's error shape for a non-2xx status.
 */
export function scriptedFetch(script: { status: number; headers?: Record<string, string> }[]) {
  const requests: { url: string; method: string; headers: Record<string, string> }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    requests.push({ url: String(input), method: init?.method ?? 'GET', headers });
    const step = script[requests.length - 1];
    if (!step) throw new Error(`scriptedFetch: no answer for request ${requests.length}`);
    const body =
      step.status < 300
        ? { items: [], next_cursor: null }
        : { error_code: step.status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE', message: 'scripted' };
    return new Response(JSON.stringify(body), {
      status: step.status,
      headers: { 'content-type': 'application/json', ...step.headers },
    });
  };
  return { fetch, requests };
}
