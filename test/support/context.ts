import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Db, DialectName } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { Api } from './api.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { eachDialectWith, type DialectFilter } from './dialects.js';

export interface ContextOptions {
  /** Runs on the built app before `app.ready()`: register test-only routes or hooks here. */
  beforeReady?: (app: FastifyInstance) => void | Promise<void>;
  /** The database as the app is given it: a fault injected around its transactions (`ctx.db` stays the real one). */
  wrapDb?: (db: Db) => Db;
}

export interface TestContext {
  app: FastifyInstance;
  db: Db;
  dialect: DialectName;
  config: Config;
  /** The test database (its DATABASE_URL, for spawned processes). */
  database: TestDatabase;
  /** A new client of a new account (or of `accountId`) with these scopes, and an Api with its token. */
  as(scopes: readonly Scope[], accountId?: string): Promise<Api>;
  /** Credentials of a new client, as `svc clients create` prints them. */
  newClient(
    scopes: readonly Scope[],
    accountId?: string,
  ): Promise<{ client_id: string; client_secret: string; account_id: string }>;
  /** Another app (as another process would be) over the same database, closed with the context. */
  secondApp(env?: Record<string, string>): Promise<FastifyInstance>;
  /** An Api for `app` with a real token of a new client of the account. */
  apiOn(app: FastifyInstance, scopes: readonly Scope[], accountId?: string): Promise<Api>;
  close(): Promise<void>;
}

export function newAccountId(): string {
  return `acct_${randomBytes(5).toString('hex')}`;
}

/** Builds an app over `db` as server.ts does (Redis rate-limit counters when REDIS_URL is set). */
async function appFor(config: Config, db: Db, options: ContextOptions = {}): Promise<FastifyInstance> {
  const app = await buildApp(config, { db, logger: false });
  await options.beforeReady?.(app);
  await app.ready();
  return app;
}

function testConfig(env: Record<string, string>, url: string): Config {
  return loadConfig({
    RATE_LIMIT_MAX: '0',
    TOKEN_RATE_LIMIT_MAX: '0',
    SIGN_IN_RATE_LIMIT_MAX: '0',
    // OWASP's floor rather than the default cost: the suite hashes hundreds of passwords (vitest.config.ts).
    PASSWORD_HASH_MEMORY_KIB: '19456',
    PASSWORD_HASH_PASSES: '2',
    ...env,
    DATABASE_URL: url,
  });
}

export async function createTestContext(
  dialect: DialectName,
  env: Record<string, string> = {},
  options: ContextOptions = {},
): Promise<TestContext> {
  const database = await createTestDatabase(dialect, { migrated: true });
  const config = testConfig(env, database.url);
  const db = openDatabase(config.database, { poolSize: 10 });
  await migrateToLatest(db);
  const app = await appFor(config, options.wrapDb?.(db) ?? db, options);
  const others: { app: FastifyInstance; db: Db }[] = [];

  const newClient: TestContext['newClient'] = async (scopes, accountId = newAccountId()) =>
    authService.createClient(db, accountId, [...scopes]);

  const apiOn: TestContext['apiOn'] = async (target, scopes, accountId) => {
    const creds = await newClient(scopes, accountId);
    const res = await target.inject({
      method: 'POST',
      url: '/oauth2/token',
      payload: { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret },
    });
    if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
    return new Api(target, JSON.parse(res.body).access_token, creds.account_id, creds.client_id);
  };

  return {
    app,
    db,
    dialect,
    config,
    database,
    newClient,
    apiOn,
    as: (scopes, accountId) => apiOn(app, scopes, accountId),
    async secondApp(otherEnv = env) {
      const otherConfig = testConfig(otherEnv, database.url);
      const otherDb = openDatabase(otherConfig.database, { poolSize: 5 });
      const other = await appFor(otherConfig, otherDb);
      others.push({ app: other, db: otherDb });
      return other;
    },
    async close() {
      for (const other of others) {
        await other.app.close();
        await other.db.close().catch(() => {});
      }
      await app.close();
      await db.close().catch(() => {});
      await database.drop();
    },
  };
}

/**
 * Runs `suite` once per dialect in DIALECTS (or for `options.only`), each with its own fresh, migrated database
 * and app. Tests isolate themselves by using new accounts (`t.ctx.as([...])`), so no table is cleared in between.
 */
export function describeEachDialect(
  name: string,
  suite: (t: { readonly ctx: TestContext; readonly dialect: DialectName }) => void,
  env: Record<string, string> = {},
  options: ContextOptions & DialectFilter = {},
): void {
  eachDialectWith(
    name,
    (dialect) => createTestContext(dialect, env, options),
    (current, dialect) =>
      suite({
        get ctx() {
          return current();
        },
        dialect,
      }),
    options,
  );
}
