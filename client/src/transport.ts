import { SvcApiError, errorFromResponse, isRecord, typedError } from './errors.js';
import { tokenEndpoint, type TokenSet } from './oauth.js';

export interface SvcClientOptions {
  /** e.g. `https://svc.example.com` or `http://127.0.0.1:8080` */
  baseUrl: string;
  /** OAuth 2.0 client credentials: the client fetches and refreshes its own tokens. */
  clientId?: string;
  clientSecret?: string;
  /** Narrow the token to these scopes (space-separated); default: all of the client's. */
  scope?: string;
  /**
   * A partner app (OAuth authorization code): its refresh token, with clientId (app_…) and, for a confidential app,
   * clientSecret. The client refreshes its access token by itself; each refresh answers a new refresh token (the
   * old one is spent), given to `onTokens`: store it, or the next start has none that works.
   */
  refreshToken?: string;
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  /** Or a ready bearer token (it is not refreshed). */
  token?: string;
  /**
   * Or, in a browser on the service's own origin (the console): the signed-in session's cookie authenticates,
   * and writes carry the session's CSRF token (`client.session.signIn` / `current` keep it).
   */
  session?: boolean;
  /** Per-attempt timeout; default 30 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt for safe requests (reads, and writes with an Idempotency-Key); default 3. */
  maxRetries?: number;
  /** Backoff: full jitter over base × 2^attempt, capped; defaults 250 ms and 20 000 ms. */
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
  /** A fetch implementation; default the global one (Node 20+, browsers). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface WriteOptions extends RequestOptions {
  /** Sent as Idempotency-Key; default a new UUID v4, so a retried write never applies twice. */
  idempotencyKey?: string;
}

type QueryValue = string | number | boolean | readonly (string | number | boolean)[] | undefined | null;

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  idempotencyKey?: string;
  options?: RequestOptions;
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A UUID v4. `crypto.randomUUID` exists only in secure contexts (HTTPS, localhost); a page served over plain HTTP
 * on another host has `crypto.getRandomValues` alone, from which the same UUID is made.
 */
export function newIdempotencyKey(): string {
  const crypto = globalThis.crypto;
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** HTTP, authentication and retries; the resource classes build on it. */
export class Transport {
  readonly #options: Required<
    Pick<SvcClientOptions, 'timeoutMs' | 'maxRetries' | 'retryBaseDelayMs' | 'retryMaxDelayMs'>
  > &
    SvcClientOptions;
  readonly #fetch: typeof fetch;
  #token: { value: string; refreshAt: number } | null = null;
  #csrfToken: string | null = null;
  #tokenRequest: Promise<string> | null = null;
  #refreshToken: string | null = null;

  constructor(options: SvcClientOptions) {
    if (!options.baseUrl) throw new TypeError('SvcClient: baseUrl is required');
    const credentials = options.clientId && (options.clientSecret || options.refreshToken);
    if (!options.session && !options.token && !credentials) {
      throw new TypeError(
        'SvcClient: give either token, or clientId and clientSecret, or clientId and refreshToken, or session: true',
      );
    }
    this.#refreshToken = options.refreshToken ?? null;
    this.#options = { timeoutMs: 30_000, maxRetries: 3, retryBaseDelayMs: 250, retryMaxDelayMs: 20_000, ...options };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    if (options.token) this.#token = { value: options.token, refreshAt: Number.POSITIVE_INFINITY };
  }

  #url(path: string, query?: Record<string, QueryValue>): string {
    const url = new URL(`${this.#options.baseUrl.replace(/\/+$/, '')}${path}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v));
    }
    return url.toString();
  }

  #delay(attempt: number, retryAfter: string | null): number {
    const seconds = retryAfter !== null ? Number(retryAfter) : Number.NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, this.#options.retryMaxDelayMs);
    const cap = Math.min(this.#options.retryMaxDelayMs, this.#options.retryBaseDelayMs * 2 ** attempt);
    return Math.random() * cap;
  }

  async #accessToken(signal?: AbortSignal): Promise<string> {
    if (this.#token && Date.now() < this.#token.refreshAt) return this.#token.value;
    this.#tokenRequest ??= this.#fetchToken(signal).finally(() => {
      this.#tokenRequest = null;
    });
    return this.#tokenRequest;
  }

  async #fetchToken(signal?: AbortSignal): Promise<string> {
    if (this.#refreshToken !== null) return this.#refresh(this.#refreshToken);
    const { clientId, clientSecret, scope } = this.#options;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) form.set('scope', scope);
    const basic = toBase64(`${encodeURIComponent(clientId!)}:${encodeURIComponent(clientSecret!)}`);
    const body = await this.#send(
      { method: 'POST', path: '/oauth2/token', options: { signal } },
      { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      form.toString(),
      true,
    );
    // A token answer is 200 (RFC 6749 §5.1) with both fields; without them no request could be authenticated.
    if (!isRecord(body) || typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
      throw new SvcApiError({
        status: 200,
        error_code: 'INVALID_TOKEN_RESPONSE',
        message: 'The token endpoint answered without a string access_token and a numeric expires_in.',
      });
    }
    // Refresh a minute early (or halfway through a short lifetime) so no request carries an expiring token.
    const margin = Math.min(60, body.expires_in / 2) * 1000;
    this.#token = { value: body.access_token, refreshAt: Date.now() + body.expires_in * 1000 - margin };
    return body.access_token;
  }

  /** A partner app's refresh (never retried: see tokenEndpoint); the rotated refresh token goes to onTokens. */
  async #refresh(refreshToken: string): Promise<string> {
    const { baseUrl, clientId, clientSecret, scope } = this.#options;
    const params: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken };
    if (scope) params.scope = scope;
    const tokens = await tokenEndpoint({ baseUrl, clientId: clientId!, clientSecret, fetch: this.#fetch }, params);
    this.#refreshToken = tokens.refresh_token;
    await this.#options.onTokens?.(tokens);
    const margin = Math.min(60, tokens.expires_in / 2) * 1000;
    this.#token = { value: tokens.access_token, refreshAt: Date.now() + tokens.expires_in * 1000 - margin };
    return tokens.access_token;
  }

  /** The CSRF token of the signed-in session (session mode); null when signed out. */
  setCsrfToken(token: string | null): void {
    this.#csrfToken = token;
  }

  async request<T>(call: Call): Promise<T> {
    let refreshed = false;
    for (;;) {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (!this.#options.session) {
        headers.authorization = `Bearer ${await this.#accessToken(call.options?.signal)}`;
      } else if (call.method !== 'GET' && this.#csrfToken !== null) {
        headers['x-csrf-token'] = this.#csrfToken;
      }
      if (call.body !== undefined) headers['content-type'] = 'application/json';
      if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
      try {
        const body = await this.#send(
          call,
          headers,
          call.body === undefined ? undefined : JSON.stringify(call.body),
          call.method === 'GET' || call.idempotencyKey !== undefined,
        );
        // The one unchecked step of the client: a 2xx body is the server's answer to this operation, and T is
        // that operation's response type generated from the server's OpenAPI document (types.ts), which
        // test/sdk/types-drift.test.ts keeps in step with what the server serves. Checking every response
        // against its schema at run time would mean shipping the schemas with the client.
        // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- typed by the OpenAPI contract, see above
        return body as T;
      } catch (error) {
        // An expired or revoked token: fetch a new one once, if we can.
        if (error instanceof SvcApiError && error.status === 401 && !refreshed && this.#options.clientId) {
          refreshed = true;
          this.#token = null;
          continue;
        }
        throw error;
      }
    }
  }

  /** One request with retries: only `safe` ones are retried (429 is always safe: it was not processed). */
  async #send(call: Call, headers: Record<string, string>, body: string | undefined, safe: boolean): Promise<unknown> {
    const url = this.#url(call.path, call.query);
    const userSignal = call.options?.signal;
    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(call.options?.timeoutMs ?? this.#options.timeoutMs);
      const signal = userSignal ? AbortSignal.any([userSignal, timeout]) : timeout;
      const canRetry = attempt < this.#options.maxRetries;
      let response: Response;
      try {
        response = await this.#fetch(url, {
          method: call.method,
          headers,
          body,
          signal,
          ...(this.#options.session ? { credentials: 'same-origin' as const } : {}),
        });
      } catch (cause) {
        if (userSignal?.aborted) {
          throw new SvcApiError({ status: 0, error_code: 'ABORTED', message: 'The request was aborted.', cause });
        }
        const timedOut = timeout.aborted;
        if (safe && canRetry) {
          await sleep(this.#delay(attempt, null), userSignal);
          continue;
        }
        throw typedError({
          status: 0,
          error_code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR',
          message: timedOut
            ? `No answer within the timeout (${call.method} ${call.path}).`
            : `Network error (${call.method} ${call.path}).`,
          cause,
        });
      }
      const requestId = response.headers.get('x-request-id');
      const text = await response.text();
      const parsed = parseBody(text);
      if (response.ok) return parsed;
      const error = errorFromResponse(response.status, parsed, requestId, response.headers.get('retry-after'));
      // A 429 was not processed, so it is safe to retry, unless it is an answer to show rather than a limit to
      // wait out (a sign-in locked for minutes).
      const retryable =
        (response.status === 429 && error.error_code !== 'SIGN_IN_LOCKED') ||
        (safe && (RETRYABLE_STATUS.has(response.status) || error.error_code === 'IDEMPOTENCY_KEY_IN_USE'));
      if (retryable && canRetry) {
        await sleep(this.#delay(attempt, response.headers.get('retry-after')), userSignal);
        continue;
      }
      throw error;
    }
  }
}

/** A write (POST or PUT) with a JSON body and an Idempotency-Key (the caller's, or a new one). */
export function writer(http: Transport) {
  return <T>(method: 'POST' | 'PUT', path: string, body: unknown, options?: WriteOptions): Promise<T> =>
    http.request<T>({ method, path, body, idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(), options });
}
