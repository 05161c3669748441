import type { SvcApiError } from './errors.js';
import type { TokenSet } from './oauth.js';

/** What `onRequest` is given before each attempt; it may add or change `headers`. */
export interface RequestHookInfo {
  method: string;
  /** The full URL, query included. */
  url: string;
  /** The API path (`/v1/fields`), without the base URL or the query. */
  path: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
  /**
   * The headers this attempt sends (lower-case names). Set a member to add a header; `authorization` carries the
   * credentials (a bearer token, or the client secret at the token endpoint): never log it.
   */
  headers: Record<string, string>;
}

/** What `onResponse` is given when an attempt is answered (any status, before a retry is decided). */
export interface ResponseHookInfo {
  method: string;
  url: string;
  path: string;
  attempt: number;
  status: number;
  headers: Headers;
  /** From the request's start to the whole body read, in ms of the client's clock (`now`). */
  durationMs: number;
  /** The answer's X-Request-Id. */
  requestId: string | null;
}

/** What `onRetry` is given before the client waits to try again. */
export interface RetryHookInfo {
  method: string;
  url: string;
  path: string;
  /** The attempt that failed (1 for the first); the next one is `attempt + 1`. */
  attempt: number;
  /**
   * Why: the answer's status (429, 5xx, 409 IDEMPOTENCY_KEY_IN_USE), or 0 when none came (`error.error_code`
   * NETWORK_ERROR or TIMEOUT).
   */
  status: number;
  /** The error the call would have thrown had it not been retried. */
  error: SvcApiError;
  /** How long the client waits before the next attempt, in ms (Retry-After or backoff, with jitter). */
  delayMs: number;
}

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
  /** Per-attempt timeout; default 30 000 ms. A call's own `timeoutMs` bounds the whole call. */
  timeoutMs?: number;
  /** Retries after the first attempt for safe requests (reads, and writes with an Idempotency-Key); default 3. */
  maxRetries?: number;
  /** Backoff: full jitter over base × 2^attempt, capped; defaults 250 ms and 20 000 ms. */
  retryBaseDelayMs?: number;
  /**
   * Also the longest wait the server may ask for (Retry-After, a spent RateLimit budget): a longer one is not
   * waited, the call fails with SvcRateLimitError (or the 503) at once.
   */
  retryMaxDelayMs?: number;
  /** A fetch implementation; default the global one (Node 20+, browsers). */
  fetch?: typeof fetch;
  /** Called before each attempt (the token request included); may add headers. Awaited. */
  onRequest?: (request: RequestHookInfo) => void | Promise<void>;
  /** Called when an attempt is answered, whatever its status. Awaited. */
  onResponse?: (response: ResponseHookInfo) => void | Promise<void>;
  /** Called before each wait for a retry. Awaited. */
  onRetry?: (retry: RetryHookInfo) => void | Promise<void>;
  /** Jitter's source of randomness, in [0, 1); default Math.random. */
  random?: () => number;
  /** The client's clock in ms (token lifetimes, rate-limit windows, durations); default Date.now. */
  now?: () => number;
  /**
   * Waits between attempts and for a spent rate limit; default a timer. The client races it with the call's
   * signal and timeout, so it need not watch them.
   */
  sleep?: (ms: number) => Promise<void>;
}

export interface RequestOptions {
  /** Aborts the call: the request in flight and any wait before a retry (SvcAbortError, `ABORTED`). */
  signal?: AbortSignal;
  /**
   * The whole call's time: every attempt and every wait between them (SvcTimeoutError, `TIMEOUT`, `scope: 'call'`).
   * Each attempt is also bounded by the client's `timeoutMs`.
   */
  timeoutMs?: number;
}

export interface WriteOptions extends RequestOptions {
  /** Sent as Idempotency-Key; default a new UUID v4, so a retried write never applies twice. */
  idempotencyKey?: string;
}
