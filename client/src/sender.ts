import type { CallScope } from './call-scope.js';
import { SvcTimeoutError, errorFromResponse, typedError, type SvcApiError } from './errors.js';
import type { SvcClientOptions } from './options.js';
import { RateLimitScheduler, retryAfterMs, type Hold } from './rate-limit.js';

/** One HTTP exchange to make, with its retries. */
export interface Exchange {
  method: string;
  /** The API path, for hooks and messages. */
  path: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | undefined;
  /** May be sent again after a failure (a read, or a write with an Idempotency-Key): see `retryable`. */
  safe: boolean;
  scope: CallScope;
  /** A 2xx answer is a file: its text and headers (a FileAnswer), not JSON. */
  file?: boolean;
}

/** A 2xx answer that is a file: its text, and the headers that name it (Content-Disposition, Content-Type). */
export interface FileAnswer {
  text: string;
  headers: Headers;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
/** Waits the server asks for are lengthened by up to this fraction, so that waiting clients do not return at once. */
const SERVER_WAIT_JITTER = 0.1;

type Settings = Required<
  Pick<SvcClientOptions, 'timeoutMs' | 'maxRetries' | 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'random' | 'now'>
> &
  SvcClientOptions;

/**
 * Which of the server's budgets a request spends: svc counts the token endpoint per address, sign-in attempts (the
 * console's POSTs under /auth/) per address too, and everything else per client. A spent sign-in budget must not
 * hold the client's other calls.
 */
function budgetGroup(method: string, path: string): string {
  if (path === '/oauth2/token') return 'token';
  return method === 'POST' && path.startsWith('/auth/') ? 'sign-in' : 'api';
}

/** A response body as JSON; null when it is empty or not JSON (errorFromResponse then falls back to the status). */
function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Sends requests for one client: hooks around each attempt, retries with backoff, and the rate limits the server
 * reports, shared by every call of the client (rate-limit.ts).
 */
export class Sender {
  readonly #o: Settings;
  readonly #fetch: typeof fetch;
  readonly #limits = new RateLimitScheduler();

  constructor(options: SvcClientOptions) {
    this.#o = {
      timeoutMs: 30_000,
      maxRetries: 3,
      retryBaseDelayMs: 250,
      retryMaxDelayMs: 20_000,
      random: Math.random,
      now: Date.now,
      ...options,
    };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * The answer's JSON body (null when empty; a file's FileAnswer); a non-2xx answer, or none, throws its SvcApiError.
   */
  async send(x: Exchange): Promise<unknown> {
    const o = this.#o;
    const group = budgetGroup(x.method, x.path);
    // The time the client has waited up to: a clock that does not move while the client sleeps (a test's) still
    // sees each wait end.
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      waited = await this.#awaitBudget(x, group, waited);
      const headers = { ...x.headers };
      await o.onRequest?.({ method: x.method, url: x.url, path: x.path, attempt, headers });
      x.scope.throwIfEnded();
      const canRetry = attempt <= o.maxRetries;
      const started = o.now();
      const timeout = AbortSignal.timeout(o.timeoutMs);
      const signal = x.scope.signal ? AbortSignal.any([x.scope.signal, timeout]) : timeout;
      let response: Response;
      let text: string;
      try {
        response = await this.#fetch(x.url, {
          method: x.method,
          headers,
          body: x.body,
          signal,
          ...(o.session ? { credentials: 'same-origin' as const } : {}),
        });
        text = await response.text();
      } catch (cause) {
        const error = x.scope.ended(cause) ?? this.#noAnswer(x, timeout.aborted, cause);
        if (error.error_code === 'ABORTED' || (error instanceof SvcTimeoutError && error.scope === 'call')) throw error;
        if (!x.safe || !canRetry) throw error;
        waited = await this.#retry(x, attempt, error, this.#backoff(attempt), waited);
        continue;
      }
      const now = o.now();
      const at = Math.max(now, waited);
      this.#limits.observe(group, response.headers, at);
      const requestId = response.headers.get('x-request-id');
      const { status } = response;
      await o.onResponse?.({
        ...{ method: x.method, url: x.url, path: x.path, attempt, status },
        ...{ headers: response.headers, durationMs: now - started, requestId },
      });
      if (response.ok && x.file) return { text, headers: response.headers } satisfies FileAnswer;
      const parsed = parseBody(text);
      if (response.ok) return parsed;
      const retryAfter = retryAfterMs(response.headers.get('retry-after'), at);
      const error = errorFromResponse(status, parsed, requestId, response.headers.get('retry-after'));
      // A sign-in locked for minutes is an answer to show, not a limit of the client's to wait out.
      const limited = status === 429 && error.error_code !== 'SIGN_IN_LOCKED';
      if ((limited || status === 503) && retryAfter !== null)
        this.#limits.pause(group, at + retryAfter, limited ? 429 : 503);
      // A 429 was not processed, so it is safe to retry.
      const retryable =
        limited || (x.safe && (RETRYABLE_STATUS.has(status) || error.error_code === 'IDEMPOTENCY_KEY_IN_USE'));
      if (!retryable || !canRetry) throw error;
      const hold = this.#limits.hold(group, at);
      const serverWait = Math.max(retryAfter ?? 0, hold?.ms ?? 0);
      // Longer than the client is willing to wait: the caller decides (error.retry_after_seconds says how long).
      if (serverWait > o.retryMaxDelayMs) throw error;
      const delay = retryAfter !== null || hold ? this.#jitter(serverWait) : this.#backoff(attempt);
      waited = await this.#retry(x, attempt, error, delay, at);
    }
  }

  /** Waits while the client's budget is spent (or the server asked to wait), then takes this request's share. */
  async #awaitBudget(x: Exchange, group: string, waited: number): Promise<number> {
    for (;;) {
      x.scope.throwIfEnded();
      const at = Math.max(this.#o.now(), waited);
      const hold = this.#limits.hold(group, at);
      if (!hold) {
        this.#limits.take(group, at);
        return waited;
      }
      if (hold.ms > this.#o.retryMaxDelayMs) throw this.#notSent(x, hold);
      const ms = this.#jitter(hold.ms);
      await this.#sleep(x.scope, ms);
      waited = at + ms;
    }
  }

  async #retry(x: Exchange, attempt: number, error: SvcApiError, delayMs: number, from: number): Promise<number> {
    const { method, url, path } = x;
    await this.#o.onRetry?.({ method, url, path, attempt, status: error.status, error, delayMs });
    const at = Math.max(this.#o.now(), from);
    await this.#sleep(x.scope, delayMs);
    return at + delayMs;
  }

  #sleep(scope: CallScope, ms: number): Promise<void> {
    scope.throwIfEnded();
    if (ms <= 0) return Promise.resolve();
    return this.#o.sleep ? scope.race(this.#o.sleep(ms)) : scope.sleep(ms);
  }

  /** Full jitter over base × 2^(attempt − 1), capped. */
  #backoff(attempt: number): number {
    const cap = Math.min(this.#o.retryMaxDelayMs, this.#o.retryBaseDelayMs * 2 ** (attempt - 1));
    return this.#o.random() * cap;
  }

  #jitter(ms: number): number {
    return ms + this.#o.random() * ms * SERVER_WAIT_JITTER;
  }

  #noAnswer(x: Exchange, timedOut: boolean, cause: unknown): SvcApiError {
    const what = `${x.method} ${x.path}`;
    if (timedOut) {
      return new SvcTimeoutError({
        ...{ status: 0, error_code: 'TIMEOUT', scope: 'attempt', timeout_ms: this.#o.timeoutMs, cause },
        message: `No answer within the timeout of ${this.#o.timeoutMs} ms (${what}).`,
      });
    }
    return typedError({ status: 0, error_code: 'NETWORK_ERROR', message: `Network error (${what}).`, cause });
  }

  /** A request not sent: the server asked the client to wait longer than `retryMaxDelayMs`. */
  #notSent(x: Exchange, hold: Hold): SvcApiError {
    const seconds = Math.ceil(hold.ms / 1000);
    return typedError({
      status: hold.status,
      error_code: hold.status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE',
      message: `Not sent (${x.method} ${x.path}): the server asked to wait ${seconds} s, longer than retryMaxDelayMs.`,
      retry_after_seconds: seconds,
    });
  }
}
