/**
 * OAuth 2.0 authorization code with PKCE for a partner app (docs/integration.md, "Connecting a partner app"):
 * build the authorization URL, exchange the code the redirect brings for tokens, then give the refresh token to
 * `new SvcClient({ baseUrl, clientId, clientSecret, refreshToken, onTokens })`, which refreshes by itself.
 * WebCrypto only: the same code runs in Node 20 and in browsers.
 */

import { isRecord } from './errors.js';

/** What the token endpoint answers a partner app. */
export interface TokenSet {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  /** Good for one use: keep the latest (a replayed refresh token revokes every token of its family). */
  refresh_token: string;
}

/** The token endpoint's refusal, in the OAuth shape (RFC 6749 §5.2). */
export class SvcOAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly errorDescription: string,
  ) {
    super(`${error}: ${errorDescription}`);
    this.name = 'SvcOAuthError';
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A PKCE verifier (64 base64url characters) and its S256 challenge (RFC 7636 §4.1–4.2). */
export async function pkcePair(): Promise<{ codeVerifier: string; codeChallenge: string }> {
  const codeVerifier = base64url(globalThis.crypto.getRandomValues(new Uint8Array(48)));
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier));
  return { codeVerifier, codeChallenge: base64url(new Uint8Array(digest)) };
}

export interface AuthorizationRequestOptions {
  /** svc's address, e.g. https://svc.example.com */
  baseUrl: string;
  /** The app's id (app_…), as `svc apps create` printed it. */
  clientId: string;
  /** One of the app's registered redirect URIs, exactly. */
  redirectUri: string;
  /** Space-separated scopes of the public API, e.g. "accounting.record.write accounting.integration.write". */
  scope: string;
  /** Default: 128 random bits. Check it on the way back (RFC 6749 §10.12). */
  state?: string;
}

/**
 * Where to send the account admin's browser, with the verifier and state to keep (in the partner's session) until
 * the redirect comes back.
 */
export async function authorizationRequest(
  options: AuthorizationRequestOptions,
): Promise<{ url: string; codeVerifier: string; state: string }> {
  const { codeVerifier, codeChallenge } = await pkcePair();
  const state = options.state ?? base64url(globalThis.crypto.getRandomValues(new Uint8Array(16)));
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/oauth2/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scope,
    state,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.toString(), codeVerifier, state };
}

/**
 * The redirect's answer: the code when `state` matches; an error otherwise (the admin denied, the request was
 * refused, or the state is not ours: a forged redirect).
 */
export function readRedirect(redirectedTo: string, expectedState: string, expectedIssuer?: string): string {
  const params = new URL(redirectedTo).searchParams;
  if (params.get('state') !== expectedState) {
    throw new SvcOAuthError(0, 'invalid_state', 'The redirect does not carry the state of this request.');
  }
  if (expectedIssuer !== undefined && params.get('iss') !== expectedIssuer) {
    throw new SvcOAuthError(0, 'invalid_issuer', 'The redirect comes from another authorization server.');
  }
  const error = params.get('error');
  if (error !== null) throw new SvcOAuthError(0, error, params.get('error_description') ?? error);
  const code = params.get('code');
  if (code === null) throw new SvcOAuthError(0, 'invalid_request', 'The redirect carries neither code nor error.');
  return code;
}

export interface TokenRequestOptions {
  baseUrl: string;
  clientId: string;
  /** A confidential app's secret; none for a public app. */
  clientSecret?: string;
  fetch?: typeof fetch;
}

function toBase64(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * One request to the token endpoint, never retried: a refresh token or a code is good for one use, and a retry
 * of a request the server did process would be taken for a replay.
 */
export async function tokenEndpoint(options: TokenRequestOptions, params: Record<string, string>): Promise<TokenSet> {
  const form = new URLSearchParams(params);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (options.clientSecret !== undefined) {
    const id = encodeURIComponent(options.clientId);
    headers.authorization = `Basic ${toBase64(`${id}:${encodeURIComponent(options.clientSecret)}`)}`;
  } else {
    form.set('client_id', options.clientId);
  }
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const url = `${options.baseUrl.replace(/\/+$/, '')}/oauth2/token`;
  const response = await doFetch(url, { method: 'POST', headers, body: form.toString() });
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: reported below
  }
  const record = isRecord(body) ? body : {};
  if (!response.ok || typeof record.access_token !== 'string') {
    const error = typeof record.error === 'string' ? record.error : 'server_error';
    const description =
      typeof record.error_description === 'string' ? record.error_description : `HTTP ${response.status}`;
    throw new SvcOAuthError(response.status, error, description);
  }
  return {
    access_token: record.access_token,
    token_type: 'Bearer',
    expires_in: typeof record.expires_in === 'number' ? record.expires_in : 0,
    scope: typeof record.scope === 'string' ? record.scope : '',
    refresh_token: typeof record.refresh_token === 'string' ? record.refresh_token : '',
  };
}

/** Exchanges the code of the redirect (with the request's verifier) for the first tokens. */
export async function exchangeCode(
  options: TokenRequestOptions & { code: string; redirectUri: string; codeVerifier: string },
): Promise<TokenSet> {
  return tokenEndpoint(options, {
    grant_type: 'authorization_code',
    code: options.code,
    redirect_uri: options.redirectUri,
    code_verifier: options.codeVerifier,
  });
}
