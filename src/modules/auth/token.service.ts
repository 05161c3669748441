import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { isOneOf, isRecord } from '../../lib/guards.js';
import { textProblems } from '../../lib/text.js';
import { authService, type TokenWriter } from './auth.service.js';
import { grantsService, type TokenAnswer } from './grants.service.js';

const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token'] as const;

/** What a token request is: its Authorization header and its parameters (form or JSON). */
export interface TokenRequestInput {
  authorization: string | undefined;
  body: unknown;
}

/** RFC 6749 §2.3.1: HTTP Basic credentials, each form-urlencoded before the Basic encoding. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  if (!header || !/^Basic\s+/i.test(header)) return null;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw errors.oauth('invalid_client', 'Malformed HTTP Basic credentials.');
  const unescape = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
  } catch {
    throw errors.oauth('invalid_client', 'Malformed HTTP Basic credentials.');
  }
}

/**
 * The token endpoint's rules (RFC 6749): which client asks (HTTP Basic or body credentials, never both; an API client
 * or a partner app), for which grant (client_credentials for API clients; authorization_code and refresh_token for
 * partner apps), and the token it gets. Every refusal is an `errors.oauth(...)`.
 */
export const tokenService = {
  /** RFC 6749 §3.2: parameters must not be included more than once (asked before the schema's type checks). */
  refuseRepeated(body: unknown): void {
    if (!isRecord(body)) return;
    for (const [name, value] of Object.entries(body)) {
      if (Array.isArray(value)) throw errors.oauth('invalid_request', `Parameter ${name} is repeated.`);
    }
  },

  async issue(db: Db, writer: TokenWriter, input: TokenRequestInput, ttlSeconds: number): Promise<TokenAnswer> {
    const body = isRecord(input.body) ? input.body : {};
    tokenService.refuseRepeated(body);
    const basic = basicCredentials(input.authorization);
    const inBody = body.client_id !== undefined || body.client_secret !== undefined;
    if (basic && inBody) throw errors.oauth('invalid_request', 'Use one client authentication method, not both.');
    const field = (name: string) => {
      const value = body[name];
      return typeof value === 'string' ? value : undefined;
    };
    const id = basic?.id ?? field('client_id');
    const secret = basic?.secret ?? field('client_secret');
    const grantType = field('grant_type');
    if (grantType === undefined || grantType === '') throw errors.oauth('invalid_request', 'grant_type is required.');
    if (!isOneOf(GRANT_TYPES, grantType)) {
      throw errors.oauth(
        'unsupported_grant_type',
        'grant_type must be client_credentials, authorization_code or refresh_token.',
      );
    }
    if (!id) throw errors.oauth('invalid_client', 'Client credentials are missing.');
    // No client id or secret holds U+0000 or a lone surrogate; PostgreSQL cannot even compare such text (a 500
    // before). The body's are refused before this (http/text-guard.ts); HTTP Basic's are refused here.
    if (textProblems(id).length > 0 || (secret !== undefined && textProblems(secret).length > 0)) {
      throw errors.oauth('invalid_client', 'Client authentication failed.');
    }
    const scope = field('scope');
    const appRow = id.startsWith('app_') ? await grantsService.findApp(db.direct, id) : undefined;
    if (grantType === 'client_credentials') {
      if (appRow) throw errors.oauth('unauthorized_client', 'A partner app uses authorization_code and refresh_token.');
      if (!secret) throw errors.oauth('invalid_client', 'Client credentials are missing.');
      return authService.issueToken(db.direct, writer, id, secret, scope, ttlSeconds);
    }
    if (!appRow) {
      // An API client (or nobody) asks for a partner app's grant: authenticate it first, then refuse.
      if (!secret) throw errors.oauth('invalid_client', 'Client authentication failed.');
      await authService.authenticateClient(db.direct, id, secret);
      throw errors.oauth('unauthorized_client', 'Only a partner app may use this grant type.');
    }
    const app = grantsService.authenticateApp(appRow, secret);
    return grantType === 'authorization_code'
      ? grantsService.exchangeCode(
          db,
          app,
          { code: field('code'), redirect_uri: field('redirect_uri'), code_verifier: field('code_verifier') },
          ttlSeconds,
        )
      : grantsService.refresh(db, app, { refresh_token: field('refresh_token'), scope }, ttlSeconds);
  },
};
