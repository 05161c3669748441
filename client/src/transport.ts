import { CallScope } from './call-scope.js';
import { SvcApiError, isRecord } from './errors.js';
import { tokenEndpoint } from './oauth.js';
import type { RequestOptions, SvcClientOptions, WriteOptions } from './options.js';
import { Sender } from './sender.js';

export type {
  RequestHookInfo,
  RequestOptions,
  ResponseHookInfo,
  RetryHookInfo,
  SvcClientOptions,
  WriteOptions,
} from './options.js';

type QueryValue = string | number | boolean | readonly (string | number | boolean)[] | undefined | null;

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** A body sent as it is (a file), with its content type, in place of a JSON body. */
  raw?: { bytes: Uint8Array<ArrayBuffer>; contentType: string };
  idempotencyKey?: string;
  options?: RequestOptions;
  /**
   * The answer is a file: its text and headers are answered as they are (a FileAnswer), and the call, a read sent as
   * POST, may be sent again.
   */
  file?: boolean;
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

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** HTTP and authentication; the resource classes build on it. Attempts, hooks and retries are the Sender's. */
export class Transport {
  readonly #options: SvcClientOptions;
  readonly #sender: Sender;
  readonly #now: () => number;
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
    this.#options = options;
    this.#sender = new Sender(options);
    this.#now = options.now ?? Date.now;
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

  /** One token for every call: a call that ends (its signal, its timeout) stops waiting, not the shared request. */
  async #accessToken(scope: CallScope): Promise<string> {
    if (this.#token && this.#now() < this.#token.refreshAt) return this.#token.value;
    this.#tokenRequest ??= this.#fetchToken().finally(() => {
      this.#tokenRequest = null;
    });
    return scope.race(this.#tokenRequest);
  }

  async #fetchToken(): Promise<string> {
    if (this.#refreshToken !== null) return this.#refresh(this.#refreshToken);
    const { clientId, clientSecret, scope } = this.#options;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) form.set('scope', scope);
    const basic = toBase64(`${encodeURIComponent(clientId!)}:${encodeURIComponent(clientSecret!)}`);
    const body = await this.#sender.send({
      method: 'POST',
      path: '/oauth2/token',
      url: this.#url('/oauth2/token'),
      headers: {
        accept: 'application/json',
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
      safe: true,
      scope: new CallScope('POST /oauth2/token'),
    });
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
    this.#token = { value: body.access_token, refreshAt: this.#now() + body.expires_in * 1000 - margin };
    return body.access_token;
  }

  /** A partner app's refresh (never retried: see tokenEndpoint); the rotated refresh token goes to onTokens. */
  async #refresh(refreshToken: string): Promise<string> {
    const { baseUrl, clientId, clientSecret, scope } = this.#options;
    const params: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken };
    if (scope) params.scope = scope;
    const fetch = this.#options.fetch;
    const tokens = await tokenEndpoint({ baseUrl, clientId: clientId!, clientSecret, fetch }, params);
    this.#refreshToken = tokens.refresh_token;
    await this.#options.onTokens?.(tokens);
    const margin = Math.min(60, tokens.expires_in / 2) * 1000;
    this.#token = { value: tokens.access_token, refreshAt: this.#now() + tokens.expires_in * 1000 - margin };
    return tokens.access_token;
  }

  /** The CSRF token of the signed-in session (session mode); null when signed out. */
  setCsrfToken(token: string | null): void {
    this.#csrfToken = token;
  }

  async request<T>(call: Call): Promise<T> {
    const scope = new CallScope(`${call.method} ${call.path}`, call.options);
    let refreshed = false;
    for (;;) {
      scope.throwIfEnded();
      const headers: Record<string, string> = { accept: call.file ? '*/*' : 'application/json' };
      if (!this.#options.session) {
        headers.authorization = `Bearer ${await this.#accessToken(scope)}`;
      } else if (call.method !== 'GET' && this.#csrfToken !== null) {
        headers['x-csrf-token'] = this.#csrfToken;
      }
      if (call.raw !== undefined) headers['content-type'] = call.raw.contentType;
      else if (call.body !== undefined) headers['content-type'] = 'application/json';
      if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
      try {
        const body = await this.#sender.send({
          method: call.method,
          path: call.path,
          url: this.#url(call.path, call.query),
          headers,
          body: call.raw?.bytes ?? (call.body === undefined ? undefined : JSON.stringify(call.body)),
          safe: call.method === 'GET' || call.idempotencyKey !== undefined || call.file === true,
          scope,
          file: call.file === true,
        });
        // The one unchecked step of the client: a 2xx body is the server's answer to this operation, and T is
        // that operation's response type generated from the server's OpenAPI document (types.ts), which
        // test/sdk/types-drift.test.ts keeps in step with what the server serves. Checking every response
        // against its schema at run time would mean shipping the schemas with the client.
        // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- typed by the OpenAPI contract, see above
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
}

/** A write (POST or PUT) with a JSON body and an Idempotency-Key (the caller's, or a new one). */
export function writer(http: Transport) {
  return <T>(method: 'POST' | 'PUT', path: string, body: unknown, options?: WriteOptions): Promise<T> =>
    http.request<T>({ method, path, body, idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(), options });
}
