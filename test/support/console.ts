import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { usersService } from '../../src/modules/users/users.service.js';
import type { Role } from '../../src/modules/users/roles.js';
import type { Db } from '../../src/db/database.js';
import { ApiClient, parseBody, type Method, type RequestOptions, type Response } from './api.js';
import { newAccountId, type TestContext } from './context.js';

export const PASSWORD = 'correct horse battery staple';
export const SESSION = '/auth/session';

/** A console user with a password, made as `svc users create` and the one-time link would. */
export async function newUser(
  db: Db,
  role: Role,
  accountId = newAccountId(),
): Promise<{ user_id: string; account_id: string; email: string; password: string }> {
  const email = `${role.toLowerCase()}.${Math.random().toString(36).slice(2, 10)}@example.com`;
  const link = await usersService.create(db, { accountId, email, role });
  await usersService.setPassword(db, link.token, PASSWORD);
  return { user_id: link.user.user_id, account_id: accountId, email, password: PASSWORD };
}

/** The session cookie a response sets ("svc_session=…"), or null. */
export function sessionCookie(res: { headers: Record<string, unknown> }): string | null {
  const raw = res.headers['set-cookie'];
  const all = Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)];
  const cookie = all.find((c: string) => c.startsWith('svc_session='));
  return cookie ? cookie.split(';')[0]! : null;
}

/**
 * A browser signed in to the console, through app.inject: sends its session cookie, and its CSRF token on
 * writes unless told not to (`csrf: false`).
 */
export class Browser extends ApiClient {
  csrf = true;
  /** The client address the requests come from (app.inject's remoteAddress). */
  ip = '127.0.0.1';
  constructor(
    readonly app: FastifyInstance,
    public cookie: string | null,
    public csrfToken: string | null,
    accountId: string,
    userId: string,
  ) {
    super(null, accountId, userId);
  }

  /** Signs in with the password (the session may be halfway: its `step` says). */
  static async signIn(
    app: FastifyInstance,
    user: { email: string; password: string; account_id: string; user_id: string },
    ip = '127.0.0.1',
  ): Promise<Browser & { step: string }> {
    const res = await app.inject({
      method: 'POST',
      url: '/auth/session',
      payload: { email: user.email, password: user.password },
      remoteAddress: ip,
    });
    expect(res.statusCode, res.body).toBe(200);
    const cookie = sessionCookie(res);
    expect(cookie).not.toBeNull();
    const body = JSON.parse(res.body);
    const browser = new Browser(app, cookie, body.csrf_token, user.account_id, user.user_id);
    browser.ip = ip;
    return Object.assign(browser, { step: String(body.step) });
  }

  async request<T = any>(method: Method, url: string, options: RequestOptions = {}): Promise<Response<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.cookie) headers.cookie = this.cookie;
    if (this.csrf && this.csrfToken && method !== 'GET' && headers['x-csrf-token'] === undefined) {
      headers['x-csrf-token'] = this.csrfToken;
    }
    const res = await this.app.inject({
      method,
      url,
      query: options.query,
      headers,
      remoteAddress: this.ip,
      ...(options.body === undefined ? {} : { payload: options.body as object }),
    });
    const body = parseBody(res.body);
    // A session started anew (the second step of a sign-in) comes with its own cookie and CSRF token.
    const renewed = sessionCookie(res);
    if (renewed) this.cookie = renewed;
    const csrf = body?.session?.csrf_token ?? (url === '/auth/session' ? body?.csrf_token : undefined);
    if (typeof csrf === 'string') this.csrfToken = csrf;
    return { status: res.statusCode, headers: res.headers, body, text: res.body };
  }
}

/** POST /auth/session with an email and password (and a cookie the browser holds already), through app.inject. */
export async function signIn(ctx: TestContext, email: string, password: string, cookie?: string) {
  return ctx.app.inject({
    method: 'POST',
    url: SESSION,
    payload: { email, password },
    headers: cookie ? { cookie } : {},
  });
}

/** The stored sessions of a user. */
export const storedSessions = (ctx: TestContext, userId: string) =>
  ctx.db.direct.selectFrom('user_sessions').selectAll().where('user_id', '=', userId).execute();
