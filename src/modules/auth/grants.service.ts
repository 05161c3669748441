import { createHash } from 'node:crypto';
import type { Db, Executor } from '../../db/database.js';
import { errors, isAppError, type AppError } from '../../errors.js';
import { newId, randomToken } from '../../lib/ids.js';
import { nowMicros } from '../../lib/clock.js';
import { appsRepository } from './apps.repository.js';
import { authRepository } from './auth.repository.js';
import type { OauthAppsTable } from './auth.tables.js';
import { hashSecret, sameHash } from './auth.service.js';
import { grantsRepository } from './grants.repository.js';
import { splitScopes } from './scopes.js';

/** A refresh token lives this long from its issue; each use answers a new one. */
export const REFRESH_TTL_SECONDS = 30 * 24 * 3600;

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

const invalidGrant = (description: string) => errors.oauth('invalid_grant', description);

/** Access and refresh token of a refresh family, stored as hashes; the answer holds them once. */
async function issue(
  ex: Executor,
  grant: {
    accountId: string;
    clientId: string;
    appId: string;
    familyId: string;
    scopes: string;
    refreshScopes: string;
  },
  ttlSeconds: number,
): Promise<TokenAnswer> {
  const now = nowMicros();
  const accessToken = `svc_at_${randomToken(32)}`;
  const refreshToken = `svc_rt_${randomToken(32)}`;
  await authRepository.insertTokens(ex, [
    {
      account_id: grant.accountId,
      token_hash: hashSecret(accessToken),
      client_id: grant.clientId,
      scopes: grant.scopes,
      created_at: now,
      expires_at: now + ttlSeconds * 1_000_000,
      family_id: grant.familyId,
    },
  ]);
  await grantsRepository.insertRefreshToken(ex, {
    account_id: grant.accountId,
    token_hash: hashSecret(refreshToken),
    family_id: grant.familyId,
    client_id: grant.clientId,
    app_id: grant.appId,
    scopes: grant.refreshScopes,
    created_at: now,
    expires_at: now + REFRESH_TTL_SECONDS * 1_000_000,
    used_at: null,
  });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ttlSeconds,
    scope: grant.scopes,
    refresh_token: refreshToken,
  };
}

/**
 * Runs `work` in a write transaction; a refusal that must revoke something (a replayed code or refresh token) is
 * returned by `work` rather than thrown, so that the revocation commits before the error is answered.
 */
async function refusingAfterCommit(db: Db, work: (ex: Executor) => Promise<TokenAnswer | AppError>) {
  const outcome = await db.write(work);
  if (isAppError(outcome)) throw outcome;
  return outcome;
}

/** The token endpoint's grants of partner apps (RFC 6749 §4.1.3 and §6, RFC 7636 §4.6, RFC 9700 §4.14). */
export const grantsService = {
  /** Ends the client's live access tokens now, or only `accessToken` (when it is one of them); answers how many. */
  async expireAccessTokens(ex: Executor, clientId: string, accessToken?: string): Promise<number> {
    const hash = accessToken === undefined ? undefined : hashSecret(accessToken);
    return authRepository.expireAccessTokens(ex, clientId, nowMicros(), hash);
  },

  /** Whether `clientId` names a partner app (then the token endpoint authenticates it as one). */
  async findApp(ex: Executor, clientId: string): Promise<OauthAppsTable | undefined> {
    return appsRepository.find(ex, clientId);
  },

  /**
   * Client authentication of an app: a confidential app by its secret, a public one by its id alone (PKCE then
   * proves the caller). A disabled app is refused as an unknown one.
   */
  authenticateApp(app: OauthAppsTable | undefined, secret: string | undefined): OauthAppsTable {
    const failed = () => errors.oauth('invalid_client', 'Client authentication failed.');
    if (!app || app.disabled_at !== null) throw failed();
    if (app.client_type === 'public') {
      if (secret !== undefined) throw failed();
      return app;
    }
    if (secret === undefined || app.secret_hash === null || !sameHash(app.secret_hash, hashSecret(secret))) {
      throw failed();
    }
    return app;
  },

  /** authorization_code: the code, its redirect URI and PKCE verifier → access and refresh token. */
  async exchangeCode(
    db: Db,
    app: OauthAppsTable,
    params: { code?: string; redirect_uri?: string; code_verifier?: string },
    ttlSeconds: number,
  ): Promise<TokenAnswer> {
    if (!params.code) throw errors.oauth('invalid_request', 'code is required.');
    if (!params.redirect_uri) throw errors.oauth('invalid_request', 'redirect_uri is required.');
    if (!params.code_verifier) throw errors.oauth('invalid_request', 'code_verifier is required (PKCE).');
    if (!VERIFIER.test(params.code_verifier)) {
      throw errors.oauth('invalid_request', 'code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~].');
    }
    const { code, redirect_uri: redirectUri, code_verifier: verifier } = params;
    return refusingAfterCommit(db, async (ex) => {
      const row = await grantsRepository.findCode(ex, hashSecret(code));
      if (!row || row.app_id !== app.app_id) return invalidGrant('The authorization code is unknown.');
      const now = nowMicros();
      if (row.used_at !== null) {
        // RFC 6749 §4.1.2: a code used twice revokes what its first use was given.
        if (row.family_id !== null) await grantsRepository.revokeFamily(ex, row.account_id, row.family_id, now);
        return invalidGrant('The authorization code was used already; the tokens it gave are revoked.');
      }
      if (row.expires_at <= now) return invalidGrant('The authorization code has expired.');
      if (row.redirect_uri !== redirectUri) {
        return invalidGrant('redirect_uri is not the one the code was issued for.');
      }
      if (s256(verifier) !== row.code_challenge) return invalidGrant('The code_verifier does not match.');
      const connection = await grantsRepository.findConnection(ex, row.account_id, row.client_id);
      if (!connection || connection.revoked_at !== null) return invalidGrant('The connection was revoked.');
      const familyId = newId('rtf');
      if (!(await grantsRepository.spendCode(ex, row, familyId, now))) {
        return invalidGrant('The authorization code was used already.');
      }
      const grant = { accountId: row.account_id, clientId: row.client_id, appId: app.app_id, familyId };
      return issue(ex, { ...grant, scopes: row.scopes, refreshScopes: row.scopes }, ttlSeconds);
    });
  },

  /** refresh_token: rotated; a replayed one revokes its family. `scope` may narrow the new access token. */
  async refresh(
    db: Db,
    app: OauthAppsTable,
    params: { refresh_token?: string; scope?: string },
    ttlSeconds: number,
  ): Promise<TokenAnswer> {
    if (!params.refresh_token) throw errors.oauth('invalid_request', 'refresh_token is required.');
    const presented = params.refresh_token;
    return refusingAfterCommit(db, async (ex) => {
      const row = await grantsRepository.findRefreshToken(ex, hashSecret(presented));
      if (!row || row.app_id !== app.app_id) return invalidGrant('The refresh token is unknown.');
      const now = nowMicros();
      const replayed = async () => {
        await grantsRepository.revokeFamily(ex, row.account_id, row.family_id, now);
        return invalidGrant('The refresh token was used already; every token of its family is revoked.');
      };
      if (row.used_at !== null) return replayed();
      if (row.expires_at <= now) return invalidGrant('The refresh token has expired.');
      const connection = await grantsRepository.findConnection(ex, row.account_id, row.client_id);
      if (!connection || connection.revoked_at !== null) return invalidGrant('The connection was revoked.');
      let scopes = row.scopes;
      if (params.scope !== undefined) {
        const held = splitScopes(row.scopes);
        const requested = [...new Set(splitScopes(params.scope))];
        if (requested.length === 0) return errors.oauth('invalid_scope', 'The scope parameter is empty.');
        const beyond = requested.filter((s) => !held.includes(s));
        if (beyond.length > 0) return errors.oauth('invalid_scope', `Not granted: ${beyond.join(' ')}.`);
        scopes = requested.join(' ');
      }
      if (!(await grantsRepository.spendRefreshToken(ex, row, now))) return replayed();
      const grant = { accountId: row.account_id, clientId: row.client_id, appId: app.app_id, familyId: row.family_id };
      return issue(ex, { ...grant, scopes, refreshScopes: row.scopes }, ttlSeconds);
    });
  },

  /** Expired codes and refresh tokens (maintenance). */
  async deleteExpired(db: Db, now = nowMicros()): Promise<number> {
    return grantsRepository.deleteExpired(db.direct, now);
  },
};
