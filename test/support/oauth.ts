import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { appsService } from '../../src/modules/auth/apps.service.js';
import type { Role } from '../../src/modules/users/roles.js';
import { Browser, newUser } from './console.js';
import { newAccountId, type TestContext } from './context.js';

export const REDIRECT = 'https://partner.example.com/oauth/callback?from=svc';
export const CONSENT = '/internal/v1/oauth/consent';
export const CONNECTED = '/internal/v1/connected-apps';

/** A PKCE pair (RFC 7636): a verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The token endpoint's answer to a code or a refresh token of the default authorization request. */
export const TOKEN_ANSWER = {
  access_token: expect.stringMatching(/^svc_at_/),
  token_type: 'Bearer',
  expires_in: 3600,
  scope: 'fields.read accounting.integration.write',
  refresh_token: expect.stringMatching(/^svc_rt_/),
};

/** A registered partner app: confidential (with its secret) unless `public`. */
export async function newApp(db: Db, options: { public?: boolean; redirectUris?: string[] } = {}) {
  const app = await appsService.create(db, {
    name: `Partner ${Math.random().toString(36).slice(2, 8)}`,
    redirectUris: options.redirectUris ?? [REDIRECT],
    public: options.public ?? false,
  });
  return { id: app.app_id, name: app.name, secret: app.client_secret };
}

/** An account admin (or another role) signed in to the console of a new account. */
export async function signedIn(
  server: FastifyInstance,
  db: Db,
  role: Role = 'ACCOUNT_ADMIN',
  accountId = newAccountId(),
) {
  return Browser.signIn(server, await newUser(db, role, accountId));
}

/** The parameters of an authorization request. */
export function authorizeParams(
  appId: string,
  challenge: string,
  overrides: Record<string, string | undefined> = {},
): Record<string, string> {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: appId,
    redirect_uri: REDIRECT,
    scope: 'fields.read accounting.integration.write',
    state: 'xyz-state',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

/** The code the consent answers (after checking the redirect carries the state and the issuer). */
export async function approve(browser: Browser, params: Record<string, string>): Promise<string> {
  const res = await browser.post(CONSENT, { ...params, approve: true });
  expect(res.status, res.text).toBe(200);
  const url = new URL(res.body.redirect_to);
  expect(url.origin + url.pathname).toBe('https://partner.example.com/oauth/callback');
  expect(url.searchParams.get('from')).toBe('svc');
  if (params.state !== undefined) expect(url.searchParams.get('state')).toBe(params.state);
  return url.searchParams.get('code')!;
}

/** POST /oauth2/token, form-encoded, with HTTP Basic when a secret is given. */
export async function tokenRequest(
  server: FastifyInstance,
  form: Record<string, string>,
  basic?: { id: string; secret: string },
) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
  const res = await server.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers,
    payload: new URLSearchParams(form).toString(),
  });
  return { status: res.statusCode, body: JSON.parse(res.body), headers: res.headers };
}

/** A bearer token's answer to GET url (status alone). */
export async function statusWith(server: FastifyInstance, token: string, url = '/v1/fields'): Promise<number> {
  const res = await server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  return res.statusCode;
}

/** An app, an admin of a new account, a PKCE pair and the code the admin's approval answers. */
export async function connectedCode(ctx: TestContext, options: { public?: boolean } = {}) {
  const app = await newApp(ctx.db, options);
  const admin = await signedIn(ctx.app, ctx.db);
  const { verifier, challenge } = pkce();
  const code = await approve(admin, authorizeParams(app.id, challenge));
  return { app, admin, verifier, code };
}

/** The code exchanged for tokens by `app` (with HTTP Basic when it has a secret). */
export const exchange = (
  server: FastifyInstance,
  app: { id: string; secret?: string },
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) =>
  tokenRequest(
    server,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, ...extra },
    app.secret ? { id: app.id, secret: app.secret } : undefined,
  );
