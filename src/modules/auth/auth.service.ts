import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { newId, randomToken } from '../../lib/ids.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { auditService, operatorSource, type AuditSource } from '../audit/audit.service.js';
import { authRepository } from './auth.repository.js';
import { activeApiClient } from './client-scopes.service.js';
import { clientRowToListing, type ClientListing, LAST_USE_PRECISION_MICROS } from './client-listing.js';
import { grantsRepository } from './grants.repository.js';
import type { AccessTokensTable, OauthClientsTable } from './auth.tables.js';
import { splitScopes, type Scope } from './scopes.js';
import { groupCommit, type GroupCommit } from '../../speed/group-commit.js';
import { noGrantCache, type GrantCache } from '../../speed/grant-cache.js';

/** Access tokens are committed in groups (src/speed/group-commit.ts) before they are handed out. */
export type TokenWriter = GroupCommit<AccessTokensTable>;

export type { Scope } from './scopes.js';
export { ALL_SCOPES } from './scopes.js';

/** The account a piece of work acts in: every service call is scoped to one. */
export interface Tenant {
  readonly accountId: string;
}

/** Who acts: an API client, a console user (once there are users), or the system itself (`svc seed`). */
export interface Actor {
  readonly type: 'client' | 'user' | 'system';
  readonly id: string;
}

/** The account and who acts in it: what a change is recorded with. */
export interface Caller extends Tenant {
  readonly actor: Actor;
}

/** The caller of an API request: its account, client, scopes. */
export interface AuthContext extends Caller {
  clientId: string;
  scopes: ReadonlySet<string>;
  /** Seals this account's pagination cursors (lib/cursor.ts). */
  cursorKey: Buffer;
  /** A console user's role (their scopes come from it); absent for an API client. */
  role?: string;
}

export interface ClientCredentials {
  client_id: string;
  client_secret: string;
  account_id: string;
  name: string;
  scopes: Scope[];
}

/** How long the previous secret keeps working after a rotation, unless told: a day; at most a week. */
export const DEFAULT_OVERLAP_SECONDS = 24 * 3600;
export const MAX_OVERLAP_SECONDS = 7 * 24 * 3600;

export const ACCOUNT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const ACCOUNT_ID_RULE = 'must be 1 to 64 characters: letters, digits, "_", "-", "." (not first)';

export { clientRowToListing, type ClientListing, LAST_USE_PRECISION_MICROS } from './client-listing.js';

/**
 * Secrets and tokens are 256-bit random strings, so a single SHA-256 is enough to store them safely: there
 * is nothing to brute-force, and checking a token costs microseconds, not a slow password hash.
 */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export const authService = {
  /** A new client (and its account, if new) with these scopes; the secret is in the answer and nowhere else. */
  async createClient(
    db: Db,
    accountId: string,
    scopes: readonly Scope[],
    source: AuditSource = operatorSource(accountId),
    name = '',
  ): Promise<ClientCredentials> {
    if (!ACCOUNT_ID_PATTERN.test(accountId)) throw errors.invalidField('/account_id', ACCOUNT_ID_RULE);
    if (scopes.length === 0) throw errors.invalidField('/scopes', 'must name at least one scope');
    const clientId = newId('cli');
    const clientSecret = `svc_cs_${randomToken(32)}`;
    const now = nowMicros();
    await db.write(async (ex) => {
      await authService.ensureAccount(ex, accountId, now);
      await authRepository.insertClient(ex, {
        account_id: accountId,
        client_id: clientId,
        secret_hash: hashSecret(clientSecret),
        scopes: scopes.join(' '),
        created_at: now,
        revoked_at: null,
        app_id: null,
        granted_by: null,
        previous_secret_hash: null,
        previous_secret_expires_at: null,
        name,
        last_used_at: null,
      });
      const details = name === '' ? { scopes } : { scopes, name };
      await auditService.record(ex, source, 'api_client.created', { type: 'api_client', id: clientId }, details);
    });
    return { client_id: clientId, client_secret: clientSecret, account_id: accountId, name, scopes: [...scopes] };
  },

  /**
   * Creates the account (with its cursor key) unless it exists. The id of a deleted account is refused (409
   * CONFLICT): its audit log is kept under that id, and a new account of the same id would read it as its own.
   */
  async ensureAccount(ex: Executor, accountId: string, now = nowMicros()): Promise<void> {
    if (!ACCOUNT_ID_PATTERN.test(accountId)) throw errors.invalidField('/account_id', ACCOUNT_ID_RULE);
    if ((await authRepository.cursorKeyOf(ex, accountId)) !== undefined) return;
    const deletedAt = await auditService.accountDeletedAt(ex, accountId);
    if (deletedAt !== null) {
      const when = microsToIso(deletedAt);
      throw errors.conflict(
        `Account ${accountId} was deleted (${when}) and its audit log is kept under that id: a new account cannot take it. Choose another account id.`,
        { account_id: accountId, deleted_at: when },
      );
    }
    await authRepository.ensureAccount(ex, accountId, randomBytes(32).toString('base64'), now);
  },

  /** The key that seals an account's cursors; null when there is no such account. */
  async cursorKeyOf(ex: Executor, accountId: string): Promise<Buffer | null> {
    const key = await authRepository.cursorKeyOf(ex, accountId);
    return key === undefined ? null : Buffer.from(key, 'base64');
  },

  /** Whether the client exists and is not revoked. */
  async isActiveClient(ex: Executor, clientId: string): Promise<boolean> {
    const client = await authRepository.findClient(ex, clientId);
    return client !== undefined && client.revoked_at === null;
  },

  /** The API clients of one account, or of all (not partner apps' connections). */
  async listClients(db: Db, accountId: string | null): Promise<ClientListing[]> {
    return (await authRepository.listClients(db.direct, accountId)).map(clientRowToListing);
  },

  /** Revokes the client and deletes its tokens (they stop working at once); NOT_FOUND unless it is active. */
  async revokeClient(db: Db, clientId: string): Promise<void> {
    await db.write((ex) => authService.revokeClientIn(ex, clientId));
  },

  /**
   * revokeClient in the caller's transaction; with `accountId`, only a client of that account (another account's
   * is NOT_FOUND, as an unknown one).
   */
  async revokeClientIn(ex: Executor, clientId: string, accountId?: string, source?: AuditSource): Promise<void> {
    const client = await activeApiClient(ex, clientId, accountId);
    await authRepository.revokeClient(ex, client.account_id, clientId, nowMicros());
    const by = source ?? operatorSource(client.account_id);
    await auditService.record(ex, by, 'api_client.revoked', { type: 'api_client', id: clientId });
  },

  /**
   * A new secret for an active API client (of `accountId` when given: another account's is NOT_FOUND); the old one
   * keeps working `overlapSeconds` more (0: it stops at once). Tokens already issued are not affected.
   */
  async rotateSecret(
    ex: Executor,
    clientId: string,
    overlapSeconds: number,
    accountId?: string,
    source?: AuditSource,
  ): Promise<{ client_id: string; client_secret: string; previous_secret_expires_at: string | null }> {
    const client = await activeApiClient(ex, clientId, accountId);
    if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_OVERLAP_SECONDS) {
      throw errors.invalidField('/overlap_seconds', `must be a whole number from 0 to ${MAX_OVERLAP_SECONDS}`);
    }
    const secret = `svc_cs_${randomToken(32)}`;
    const expiresAt = overlapSeconds === 0 ? null : nowMicros() + overlapSeconds * 1_000_000;
    await authRepository.setSecret(ex, client.account_id, clientId, {
      secret_hash: hashSecret(secret),
      previous_secret_hash: expiresAt === null ? null : client.secret_hash,
      previous_secret_expires_at: expiresAt,
    });
    const by = source ?? operatorSource(client.account_id);
    await auditService.record(
      ex,
      by,
      'api_client.secret_rotated',
      { type: 'api_client', id: clientId },
      {
        previous_secret_valid_seconds: overlapSeconds,
      },
    );
    return {
      client_id: clientId,
      client_secret: secret,
      previous_secret_expires_at: expiresAt === null ? null : microsToIso(expiresAt),
    };
  },

  /** Deletes every access token, authorization code and refresh token past its expiry (maintenance); how many. */
  async deleteExpiredTokens(db: Db, now = nowMicros()): Promise<number> {
    const access = await authRepository.deleteExpiredTokens(db.direct, now);
    return access + (await grantsRepository.deleteExpired(db.direct, now));
  },

  /** An API client by its id and secret (not a partner app's connection); invalid_client otherwise. */
  async authenticateClient(ex: Executor, clientId: string, clientSecret: string): Promise<OauthClientsTable> {
    const client = await authRepository.findClient(ex, clientId);
    const usable = client && client.revoked_at === null && client.app_id === null;
    if (!usable) throw errors.oauth('invalid_client', 'Client authentication failed.');
    const given = hashSecret(clientSecret);
    // During a rotation's overlap the previous secret works too.
    const previous =
      client.previous_secret_hash !== null &&
      client.previous_secret_expires_at !== null &&
      client.previous_secret_expires_at > nowMicros() &&
      sameHash(client.previous_secret_hash, given);
    if (!sameHash(client.secret_hash, given) && !previous) {
      throw errors.oauth('invalid_client', 'Client authentication failed.');
    }
    return client;
  },

  /** Client credentials grant (RFC 6749 §4.4). */
  async issueToken(
    ex: Executor,
    tokens: TokenWriter,
    clientId: string,
    clientSecret: string,
    requestedScope: string | undefined,
    ttlSeconds: number,
  ): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number; scope: string }> {
    const client = await authService.authenticateClient(ex, clientId, clientSecret);
    const granted = splitScopes(client.scopes);
    let scopes = granted;
    if (requestedScope !== undefined) {
      const requested = [...new Set(splitScopes(requestedScope))];
      const refused = requested.filter((s) => !granted.includes(s));
      if (requested.length === 0) throw errors.oauth('invalid_scope', 'The scope parameter is empty.');
      if (refused.length > 0) {
        throw errors.oauth('invalid_scope', `The client may not request: ${refused.join(' ')}.`);
      }
      scopes = requested;
    }
    const token = `svc_at_${randomToken(32)}`;
    const now = nowMicros();
    // Committed with the tokens asked for at the same time (group commit), before it is handed out.
    await tokens.insert({
      account_id: client.account_id,
      token_hash: hashSecret(token),
      client_id: client.client_id,
      scopes: scopes.join(' '),
      created_at: now,
      expires_at: now + ttlSeconds * 1_000_000,
      family_id: null,
    });
    // The client's last use, to the minute: one short write a minute at most per client, never one per request.
    // After the token is stored, and advisory: a database that cannot take it now (locked, going away) never fails
    // a token already committed, nor holds the group commit up.
    if (client.last_used_at === null || now - client.last_used_at >= LAST_USE_PRECISION_MICROS) {
      await authRepository
        .markUsed(ex, client.account_id, client.client_id, now, now - LAST_USE_PRECISION_MICROS)
        .catch(() => undefined);
    }
    return { access_token: token, token_type: 'Bearer', expires_in: ttlSeconds, scope: scopes.join(' ') };
  },

  /** The context of a bearer token, or null when it is unknown, expired or its client revoked. */
  async authenticate(
    ex: Executor,
    token: string,
    grants: GrantCache<AuthContext> = noGrantCache,
  ): Promise<AuthContext | null> {
    const grant = await grants.read(ex, token, async () => {
      const row = await authRepository.findGrant(ex, hashSecret(token));
      if (!row) return undefined;
      const context: AuthContext = {
        accountId: row.account_id,
        actor: { type: 'client', id: row.client_id },
        clientId: row.client_id,
        scopes: new Set(splitScopes(row.scopes)),
        cursorKey: Buffer.from(row.cursor_key, 'base64'),
      };
      return { context, expiresAt: row.expires_at };
    });
    return !grant || grant.expiresAt <= nowMicros() ? null : grant.context;
  },

  /** Issued tokens' writer: groups of up to 500 rows (both dialects' parameter limits), `deadlineMs` each. */
  tokenWriter(db: Db, deadlineMs: number): TokenWriter {
    return groupCommit(db, (ex, rows) => authRepository.insertTokens(ex, rows), { deadlineMs, maxBatch: 500 });
  },
};
