import { auditService, type AuditSource } from '../audit/audit.service.js';
import type { Db, Executor } from '../../db/database.js';
import { errors, type AppError } from '../../errors.js';
import { isOneOf, stringsOf } from '../../lib/guards.js';
import { newId, randomToken } from '../../lib/ids.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { appsRepository } from './apps.repository.js';
import { authRepository } from './auth.repository.js';
import type { OauthAppsTable } from './auth.tables.js';
import { hashSecret, type AuthContext } from './auth.service.js';
import { grantsRepository } from './grants.repository.js';
import { PARTNER_SCOPES, SCOPES, splitScopes, type Scope } from './scopes.js';

/** How long an authorization code may wait for its exchange. */
export const CODE_TTL_SECONDS = 120;

/** The query of GET /oauth2/authorize (RFC 6749 §4.1.1, RFC 7636 §4.3), as the console passes it on. */
export interface AuthorizationRequest {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** A valid request, as the consent screen shows it. */
export interface ConsentView {
  app: { app_id: string; name: string };
  account_id: string;
  redirect_uri: string;
  scopes: { scope: Scope; description: string }[];
  state: string | null;
}

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** `uri` with the parameters added to its query (RFC 6749 §4.1.2: "retain the query component"). */
function withParams(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value != null) url.searchParams.append(name, value);
  return url.toString();
}

/**
 * RFC 6749 §4.1.2.1: without a valid client and redirect URI nothing is redirected (the user is told); any other
 * problem is sent back to the app's redirect URI with its OAuth error code and the state.
 */
function refuse(
  message: string,
  redirect?: { uri: string; error: string; state: string | undefined; issuer: string },
): AppError {
  const redirectTo = redirect
    ? withParams(redirect.uri, {
        error: redirect.error,
        error_description: message,
        state: redirect.state,
        iss: redirect.issuer,
      })
    : null;
  return errors.invalidAuthorizationRequest(message, redirect?.error ?? 'invalid_request', redirectTo);
}

async function validate(
  ex: Executor,
  caller: AuthContext,
  request: AuthorizationRequest,
  issuer: string,
): Promise<{ app: OauthAppsTable; redirectUri: string; scopes: Scope[] }> {
  if (caller.role === undefined) throw errors.consoleOnly();
  const app = request.client_id ? await appsRepository.find(ex, request.client_id) : undefined;
  if (!app) throw refuse(`No partner app has the client_id ${JSON.stringify(request.client_id ?? '')}.`);
  if (app.disabled_at !== null) throw refuse(`The app ${app.name} is disabled.`);
  const registered = stringsOf(app.redirect_uris_json);
  if (!request.redirect_uri) throw refuse('redirect_uri is required.');
  if (!registered.includes(request.redirect_uri)) {
    throw refuse(`The redirect_uri is not one registered for ${app.name} (matched exactly).`);
  }
  const back = (error: string, message: string) =>
    refuse(message, { uri: request.redirect_uri!, error, state: request.state, issuer });
  if (request.response_type !== 'code') {
    throw back('unsupported_response_type', 'response_type must be "code".');
  }
  if (!request.code_challenge || !CHALLENGE.test(request.code_challenge)) {
    throw back('invalid_request', 'code_challenge is required: PKCE (RFC 7636), 43 base64url characters.');
  }
  if (request.code_challenge_method !== 'S256') {
    throw back('invalid_request', 'code_challenge_method must be "S256".');
  }
  const requested = [...new Set(splitScopes(request.scope ?? ''))];
  if (requested.length === 0) throw back('invalid_scope', 'scope is required: the scopes the app asks for.');
  const refused = requested.filter((s) => !isOneOf(PARTNER_SCOPES, s));
  if (refused.length > 0) throw back('invalid_scope', `A partner app may not ask for: ${refused.join(' ')}.`);
  const beyond = requested.filter((s) => !caller.scopes.has(s));
  if (beyond.length > 0) throw back('invalid_scope', `You may not grant what you do not hold: ${beyond.join(' ')}.`);
  return { app, redirectUri: request.redirect_uri, scopes: requested.filter((s) => isOneOf(PARTNER_SCOPES, s)) };
}

/**
 * The consent of an account admin (signed in to the console) to a partner app's authorization request: what the
 * screen shows, and the answer (a code, or access_denied) sent back to the app's redirect URI.
 */
export const consentService = {
  async describe(db: Db, caller: AuthContext, request: AuthorizationRequest, issuer: string): Promise<ConsentView> {
    const { app, redirectUri, scopes } = await validate(db.direct, caller, request, issuer);
    return {
      app: { app_id: app.app_id, name: app.name },
      account_id: caller.accountId,
      redirect_uri: redirectUri,
      scopes: scopes.map((scope) => ({ scope, description: SCOPES[scope] })),
      state: request.state ?? null,
    };
  },

  /** Approve: connects the app (once per account) and answers a code; deny: access_denied. */
  async decide(
    db: Db,
    caller: AuthContext & AuditSource,
    request: AuthorizationRequest,
    approve: boolean,
    issuer: string,
  ): Promise<{ redirect_to: string }> {
    return db.write(async (ex) => {
      const { app, redirectUri, scopes } = await validate(ex, caller, request, issuer);
      const state = request.state;
      if (!approve) {
        return {
          redirect_to: withParams(redirectUri, {
            error: 'access_denied',
            error_description: 'The account admin denied the request.',
            state,
            iss: issuer,
          }),
        };
      }
      const now = nowMicros();
      // One connection per account and app, whatever approvals race (a partial unique index holds it).
      const candidate = {
        account_id: caller.accountId,
        client_id: newId('cli'),
        // Never matches a secret: a connection takes no client credentials grant.
        secret_hash: '',
        scopes: scopes.join(' '),
        created_at: now,
        revoked_at: null,
        app_id: app.app_id,
        granted_by: caller.actor.id,
        previous_secret_hash: null,
        previous_secret_expires_at: null,
        name: '',
        last_used_at: null,
      };
      await grantsRepository.insertConnectionUnlessActive(ex, candidate);
      const connection = (await grantsRepository.activeConnection(ex, caller.accountId, app.app_id))!;
      if (connection.client_id !== candidate.client_id) {
        const union = [...new Set([...splitScopes(connection.scopes), ...scopes])].join(' ');
        await authRepository.setScopes(ex, caller.accountId, connection.client_id, union);
      }
      await auditService.record(
        ex,
        caller,
        'connected_app.authorized',
        { type: 'connected_app', id: app.app_id },
        {
          scopes,
          redirect_uri: redirectUri,
        },
      );
      const code = `svc_ac_${randomToken(32)}`;
      await grantsRepository.insertCode(ex, {
        account_id: caller.accountId,
        code_hash: hashSecret(code),
        client_id: connection.client_id,
        app_id: app.app_id,
        redirect_uri: redirectUri,
        code_challenge: request.code_challenge!,
        scopes: scopes.join(' '),
        created_at: now,
        expires_at: now + CODE_TTL_SECONDS * 1_000_000,
        used_at: null,
        family_id: null,
      });
      return { redirect_to: withParams(redirectUri, { code, state, iss: issuer }) };
    });
  },
};

/** A partner app connected to the account, as the console lists it. */
export interface ConnectedAppDto {
  app_id: string;
  name: string;
  scopes: string[];
  connected_at: string;
  /** the console user who connected it */
  connected_by: string | null;
}

/** The account's connected partner apps: listed for its admins, who may revoke them. */
export const connectionsService = {
  async list(db: Db, accountId: string): Promise<ConnectedAppDto[]> {
    const rows = await grantsRepository.listConnections(db.direct, accountId);
    return rows.map((row) => ({
      app_id: row.app_id!,
      name: row.app_name,
      scopes: splitScopes(row.scopes),
      connected_at: microsToIso(row.created_at),
      connected_by: row.granted_by,
    }));
  },

  /** Every token the app holds for the account stops working on its next request; NOT_FOUND unless connected. */
  async revoke(ex: Executor, source: AuditSource, appId: string): Promise<void> {
    const connection = await grantsRepository.activeConnection(ex, source.accountId, appId);
    if (!connection) throw errors.notFound(`Connected app ${appId}`, { app_id: appId });
    await grantsRepository.revokeConnection(ex, source.accountId, connection.client_id, nowMicros());
    await auditService.record(ex, source, 'connected_app.revoked', { type: 'connected_app', id: appId });
  },
};
