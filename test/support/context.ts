import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Db, type DialectName } from '../../src/db/dialect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { DIALECTS } from './dialects.js';

export interface Response<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
}

/** A caller of the API through app.inject, authenticated with a real token of one client. */
export class Api {
  constructor(
    readonly app: FastifyInstance,
    readonly token: string | null,
    readonly accountId: string,
    readonly clientId: string,
  ) {}

  async request<T = any>(
    method: InjectOptions['method'],
    url: string,
    options: { body?: unknown; headers?: Record<string, string>; query?: Record<string, string | string[]> } = {},
  ): Promise<Response<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.token && headers.authorization === undefined) headers.authorization = `Bearer ${this.token}`;
    const res = await this.app.inject({
      method,
      url,
      query: options.query,
      headers,
      ...(options.body === undefined ? {} : { payload: options.body as object }),
    });
    let body: any = null;
    try {
      body = res.body === '' ? null : JSON.parse(res.body);
    } catch {
      body = res.body;
    }
    return { status: res.statusCode, headers: res.headers, body, text: res.body };
  }

  get<T = any>(url: string, query?: Record<string, string | string[]>, headers?: Record<string, string>) {
    return this.request<T>('GET', url, { query, headers });
  }
  post<T = any>(url: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', url, { body, headers });
  }
  /** POST with a fresh Idempotency-Key, as a client SDK would send on creates. */
  create<T = any>(url: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', url, { body, headers: { 'idempotency-key': randomUUID(), ...headers } });
  }
  put<T = any>(url: string, body: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', url, { body, headers });
  }
  delete<T = any>(url: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('DELETE', url, { body, headers });
  }
}

export interface TestContext {
  app: FastifyInstance;
  db: Db;
  dialect: DialectName;
  config: Config;
  /** A new client of a new account (or of `accountId`) with these scopes, and an Api with its token. */
  as(scopes: readonly Scope[], accountId?: string): Promise<Api>;
  /** Credentials of a new client, as `svc clients create` prints them. */
  newClient(scopes: readonly Scope[], accountId?: string): Promise<{ client_id: string; client_secret: string; account_id: string }>;
  close(): Promise<void>;
}

export function newAccountId(): string {
  return `acct_${randomBytes(5).toString('hex')}`;
}

export async function createTestContext(
  dialect: DialectName,
  env: Record<string, string> = {},
): Promise<TestContext & { database: TestDatabase }> {
  const database = await createTestDatabase(dialect);
  const config = loadConfig({ RATE_LIMIT_MAX: '0', TOKEN_RATE_LIMIT_MAX: '0', ...env, DATABASE_URL: database.url });
  const db = openDatabase(config.database, { poolSize: 10 });
  await migrateToLatest(db);
  const app = await buildApp(config, { db, logger: false });
  await app.ready();

  const newClient: TestContext['newClient'] = async (scopes, accountId = newAccountId()) =>
    authService.createClient(db.kysely, accountId, [...scopes]);

  return {
    app,
    db,
    dialect,
    config,
    database,
    newClient,
    async as(scopes, accountId) {
      const creds = await newClient(scopes, accountId);
      const res = await app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret },
      });
      if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
      return new Api(app, JSON.parse(res.body).access_token, creds.account_id, creds.client_id);
    },
    async close() {
      await app.close();
      await db.close();
      await database.drop();
    },
  };
}

/**
 * Runs `suite` once per dialect in DIALECTS, each with its own fresh, migrated database and app.
 * Tests isolate themselves by using new accounts (`t.ctx.as([...])`), so no table is cleared in between.
 */
export function describeEachDialect(
  name: string,
  suite: (t: { readonly ctx: TestContext; readonly dialect: DialectName }) => void,
  env: Record<string, string> = {},
): void {
  for (const dialect of DIALECTS) {
    describe(`${name} [${dialect}]`, () => {
      let ctx: (TestContext & { database: TestDatabase }) | undefined;
      beforeAll(async () => {
        ctx = await createTestContext(dialect, env);
      });
      afterAll(async () => {
        await ctx?.close();
      });
      suite({
        get ctx() {
          if (!ctx) throw new Error('test context not ready');
          return ctx;
        },
        dialect,
      });
    });
  }
}
