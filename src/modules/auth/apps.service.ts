import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { stringsOf } from '../../lib/guards.js';
import { newId, randomToken } from '../../lib/ids.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { appsRepository } from './apps.repository.js';
import type { OauthAppsTable } from './auth.tables.js';
import { hashSecret } from './auth.service.js';

/** A partner app as `svc apps` prints it (never its secret). */
export interface AppDto {
  app_id: string;
  name: string;
  client_type: 'confidential' | 'public';
  redirect_uris: string[];
  status: 'ACTIVE' | 'DISABLED';
  created_at: string;
  disabled_at: string | null;
}

export interface AppCredentials extends AppDto {
  /** Confidential apps only; shown once. */
  client_secret?: string;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The rule for a redirect URI (RFC 6749 §3.1.2, RFC 9700 §2.1, RFC 8252 §7.3): an absolute https URL without a
 * fragment, or http on a loopback address (a native app or a developer's machine). Matched exactly, character for
 * character, at authorization and at the token endpoint. Returns the problem, or null.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return 'must be at most 2000 characters';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment (#…)';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return null;
  return 'must use https (http only on a loopback address: 127.0.0.1, [::1], localhost)';
}

export function appRowToDto(row: OauthAppsTable): AppDto {
  return {
    app_id: row.app_id,
    name: row.name,
    client_type: row.client_type,
    redirect_uris: stringsOf(row.redirect_uris_json),
    status: row.disabled_at === null ? 'ACTIVE' : 'DISABLED',
    created_at: microsToIso(row.created_at),
    disabled_at: row.disabled_at === null ? null : microsToIso(row.disabled_at),
  };
}

const newSecret = (): string => `svc_as_${randomToken(32)}`;

/**
 * Partner apps: the OAuth clients of the authorization code flow, registered by the operator (`svc apps`), connected
 * to an account by one of its admins in the console (docs/integration.md, "Connecting a partner app").
 */
export const appsService = {
  async create(
    db: Db,
    input: { name: string; redirectUris: readonly string[]; public?: boolean },
  ): Promise<AppCredentials> {
    const name = input.name.trim();
    if (name.length < 1 || name.length > 100) throw errors.invalidField('/name', 'must be 1 to 100 characters');
    if (input.redirectUris.length === 0) throw errors.invalidField('/redirect_uris', 'must name at least one URI');
    if (input.redirectUris.length > 10) throw errors.invalidField('/redirect_uris', 'must name at most 10 URIs');
    input.redirectUris.forEach((uri, i) => {
      const problem = redirectUriProblem(uri);
      if (problem) throw errors.invalidField(`/redirect_uris/${i}`, `${problem} (got ${JSON.stringify(uri)})`);
    });
    const now = nowMicros();
    const secret = input.public ? undefined : newSecret();
    const row: OauthAppsTable = {
      app_id: newId('app'),
      name,
      client_type: input.public ? 'public' : 'confidential',
      secret_hash: secret === undefined ? null : hashSecret(secret),
      redirect_uris_json: JSON.stringify([...new Set(input.redirectUris)]),
      created_at: now,
      updated_at: now,
      disabled_at: null,
    };
    await appsRepository.insert(db.direct, row);
    return secret === undefined ? appRowToDto(row) : { ...appRowToDto(row), client_secret: secret };
  },

  async list(db: Db): Promise<AppDto[]> {
    return (await appsRepository.list(db.direct)).map(appRowToDto);
  },

  /**
   * No new authorization, no token; every token of its connections stops working at once (enabling it again needs
   * a new authorization by each account).
   */
  async disable(db: Db, appId: string): Promise<AppDto> {
    return db.write(async (ex) => {
      const app = await appsRepository.find(ex, appId);
      if (!app) throw errors.notFound(`App ${appId}`, { app_id: appId });
      if (app.disabled_at !== null) return appRowToDto(app);
      const now = nowMicros();
      await appsRepository.spendTokensOfApp(ex, appId, now);
      return appRowToDto((await appsRepository.update(ex, appId, { disabled_at: now, updated_at: now }))!);
    });
  },

  async enable(db: Db, appId: string): Promise<AppDto> {
    const row = await appsRepository.update(db.direct, appId, { disabled_at: null, updated_at: nowMicros() });
    if (!row) throw errors.notFound(`App ${appId}`, { app_id: appId });
    return appRowToDto(row);
  },

  /** A new secret for a confidential app; the old one stops working at once. */
  async rotateSecret(db: Db, appId: string): Promise<AppCredentials> {
    const app = await appsRepository.find(db.direct, appId);
    if (!app) throw errors.notFound(`App ${appId}`, { app_id: appId });
    if (app.client_type === 'public') {
      throw errors.invalidField('/app_id', 'is a public app: it has no secret (it proves itself with PKCE alone)');
    }
    const secret = newSecret();
    const row = await appsRepository.update(db.direct, appId, {
      secret_hash: hashSecret(secret),
      updated_at: nowMicros(),
    });
    return { ...appRowToDto(row!), client_secret: secret };
  },
};
