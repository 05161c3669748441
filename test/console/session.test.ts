import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { ADMIN, reviewUrl } from '../support/accounting.js';
import { Browser, newUser, PASSWORD, sessionCookie } from '../support/console.js';
import { describeEachDialect, newAccountId, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';

const SESSION = '/auth/session';
const SEARCH = '/internal/v1/accounting/records';
const codingUrl = (id: string) => `/internal/v1/accounting/records/${id}/coding`;
const historyUrl = (id: string) => `/internal/v1/accounting/records/${id}/history`;
const hash = (cookie: string) => {
  // "svc_session=<id>.<signature>": the store keys sessions by the SHA-256 of the id alone.
  const value = decodeURIComponent(cookie.slice('svc_session='.length));
  return createHash('sha256')
    .update(value.slice(0, value.lastIndexOf('.')))
    .digest('hex');
};

const storedSessions = (ctx: TestContext, userId: string) =>
  ctx.db.direct.selectFrom('user_sessions').selectAll().where('user_id', '=', userId).execute();
const storedUser = (ctx: TestContext, userId: string) =>
  ctx.db.direct.selectFrom('users').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();

async function signIn(ctx: TestContext, email: string, password: string, cookie?: string) {
  return ctx.app.inject({
    method: 'POST',
    url: SESSION,
    payload: { email, password },
    headers: cookie ? { cookie } : {},
  });
}

/** An account with a record under review, its admin API client, and a signed-in user of the given role. */
async function account(ctx: TestContext, role: 'ACCOUNT_ADMIN' | 'BOOKKEEPER' | 'READ_ONLY') {
  const api = await ctx.as([...ADMIN, 'accounting.record.review', 'accounting.record.read']);
  const record = await api.newRecord({ review_status: 'REVIEW' });
  const user = await newUser(ctx.db, role, api.accountId);
  return { api, record, user, browser: await Browser.signIn(ctx.app, user) };
}

describeEachDialect('console: sign-in and sessions', (t) => {
  it('signs in: the user, a CSRF token, and an HttpOnly SameSite cookie whose id is stored only as a hash', async () => {
    const user = await newUser(t.ctx.db, 'BOOKKEEPER');
    const res = await signIn(t.ctx, user.email.toUpperCase(), PASSWORD);
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      user: {
        user_id: user.user_id,
        account_id: user.account_id,
        email: user.email,
        role: 'BOOKKEEPER',
        status: 'ACTIVE',
        mfa_enrolled: false,
        created_at: expect.stringMatching(ISO_MICROS),
      },
      step: 'SIGNED_IN',
      csrf_token: expect.any(String),
      expires_at: expect.stringMatching(ISO_MICROS),
    });
    const setCookie = String(res.headers['set-cookie']);
    expect(res.headers['cache-control']).toBe('no-store');
    // Over plain HTTP `secure: 'auto'` leaves out Secure and relaxes SameSite=Strict to Lax (docs/console.md).
    const attributes = /^svc_session=[^;]+; Path=\/; Expires=([^;]+); HttpOnly; SameSite=Lax$/.exec(setCookie);
    expect(attributes, setCookie).not.toBeNull();
    const lifetime = Date.parse(attributes![1]!) - Date.now();
    expect(lifetime).toBeGreaterThan(12 * 3600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(12 * 3600_000);
    const cookie = sessionCookie(res)!;
    const stored = await storedSessions(t.ctx, user.user_id);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.session_hash).toBe(hash(cookie));
    expect(stored[0]!.data_json).not.toContain(cookie.split('=')[1]!.split('.')[0]);
    expect(Number(stored[0]!.expires_at) - Number(stored[0]!.created_at)).toBe(12 * 3600 * 1_000_000);
    // The password is kept as an argon2id hash.
    expect((await storedUser(t.ctx, user.user_id)).password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=4,t=2\$/);
  });

  it('answers one 401 for an unknown email, a wrong password, a disabled user and a user without a password', async () => {
    const user = await newUser(t.ctx.db, 'READ_ONLY');
    const disabled = await newUser(t.ctx.db, 'READ_ONLY');
    await t.ctx.db.direct
      .updateTable('users')
      .set({ disabled_at: 1 })
      .where('user_id', '=', disabled.user_id)
      .execute();
    const { usersService } = await import('../../src/modules/users/users.service.js');
    const invited = await usersService.create(t.ctx.db, {
      accountId: newAccountId(),
      email: 'invited@example.com',
      role: 'READ_ONLY',
    });
    const answers = [
      await signIn(t.ctx, 'nobody@example.com', PASSWORD),
      await signIn(t.ctx, user.email, 'wrong password here'),
      await signIn(t.ctx, disabled.email, PASSWORD),
      await signIn(t.ctx, invited.user.email, PASSWORD),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(401);
      expect(JSON.parse(res.body)).toEqual(
        errorBody('INVALID_CREDENTIALS', { message: 'The email or password is incorrect.' }),
      );
      expect(sessionCookie(res)).toBeNull();
    }
  });

  // Failed sign-ins are throttled per (email, address) and per address, never per user: sign-in-throttle.test.ts.

  it('gives a new session id at sign-in: an id planted before (or an earlier session) never signs anybody in', async () => {
    const attacker = await newUser(t.ctx.db, 'READ_ONLY');
    const victim = await newUser(t.ctx.db, 'ACCOUNT_ADMIN');
    const planted = sessionCookie(await signIn(t.ctx, attacker.email, PASSWORD))!;
    const res = await signIn(t.ctx, victim.email, PASSWORD, planted);
    expect(res.statusCode).toBe(200);
    const fresh = sessionCookie(res)!;
    expect(fresh).not.toBe(planted);
    const withPlanted = await t.ctx.app.inject({ method: 'GET', url: SESSION, headers: { cookie: planted } });
    expect(withPlanted.statusCode).toBe(401);
    const withFresh = await t.ctx.app.inject({ method: 'GET', url: SESSION, headers: { cookie: fresh } });
    expect(JSON.parse(withFresh.body).user.user_id).toBe(victim.user_id);
    expect(await storedSessions(t.ctx, attacker.user_id)).toEqual([]);
  });

  it('refuses a forged cookie: a signature that does not match, or an id the store does not know', async () => {
    const user = await newUser(t.ctx.db, 'READ_ONLY');
    const cookie = sessionCookie(await signIn(t.ctx, user.email, PASSWORD))!;
    const forged = `${cookie.slice(0, -3)}xyz`;
    for (const c of [forged, 'svc_session=unknown.signature', 'svc_session=']) {
      const res = await t.ctx.app.inject({ method: 'GET', url: SEARCH, headers: { cookie: c } });
      expect(res.statusCode).toBe(401);
      expect(JSON.parse(res.body)).toEqual(errorBody('UNAUTHORIZED'));
    }
  });
});

describeEachDialect('console: what a session may do', (t) => {
  it('calls the API with the role of the user; writes need the CSRF token and are recorded as the user', async () => {
    const { record, browser, user } = await account(t.ctx, 'BOOKKEEPER');
    const list = await browser.get(SEARCH, { review_status: 'REVIEW' });
    expect(list.status).toBe(200);
    expect(list.body.items.map((r: any) => r.id)).toEqual([record.id]);

    browser.csrf = false;
    const withoutToken = await browser.post('/internal/v1/accounting/records/review-status', {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: record.id }],
    });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body).toEqual(errorBody('CSRF_TOKEN_INVALID'));
    const wrongToken = await browser.post(
      '/internal/v1/accounting/records/review-status',
      { review_status: 'READY_FOR_EXPORT', records: [{ id: record.id }] },
      { 'x-csrf-token': 'not-the-token' },
    );
    expect(wrongToken.status).toBe(403);
    expect(wrongToken.body).toEqual(errorBody('CSRF_TOKEN_INVALID'));
    expect((await browser.get(historyUrl(record.id))).body.items.map((e: any) => e.version)).toEqual([1]);

    browser.csrf = true;
    const moved = await browser.post('/internal/v1/accounting/records/review-status', {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: record.id, version: 1 }],
    });
    expect(moved.status, moved.text).toBe(200);
    const history = (await browser.get(historyUrl(record.id))).body.items;
    expect(history.at(-1)).toMatchObject({ version: 2, type: 'MOVED', actor: { type: 'user', id: user.user_id } });
  });

  it('answers 403 for what the role does not allow, and changes nothing', async () => {
    const ro = await account(t.ctx, 'READ_ONLY');
    const move = await ro.browser.post(reviewUrl(ro.record.id), { review_status: 'READY_FOR_EXPORT' });
    expect(move.status).toBe(403);
    expect(move.body).toEqual(
      errorBody('FORBIDDEN', {
        message: 'Your role (READ_ONLY) does not allow this operation.',
        details: { role: 'READ_ONLY', required_scopes: ['accounting.record.admin'] },
      }),
    );
    const code = await ro.browser.post(codingUrl(ro.record.id), { version: 1, lines: [] });
    expect(code.status).toBe(403);
    expect((await ro.api.get(`/v3/accounting/records/${ro.record.id}`)).body.version).toBe(1);

    const bk = await account(t.ctx, 'BOOKKEEPER');
    for (const [method, url, body] of [
      ['POST', '/v1/fields', { name: 'Class', group: 'ACCOUNTING' }],
      ['PUT', '/internal/v1/accounting/required-coding', { field_ids: [] }],
      ['POST', '/v3/accounting/records/export-results', { results: [] }],
    ] as const) {
      const res = await bk.browser.request(method, url, { body, headers: { 'idempotency-key': crypto.randomUUID() } });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.error_code).toBe('FORBIDDEN');
    }
    expect((await bk.api.get('/v1/fields')).body.items).toEqual([]);

    const admin = await account(t.ctx, 'ACCOUNT_ADMIN');
    const field = await admin.browser.create('/v1/fields', { name: 'Class', group: 'ACCOUNTING' });
    expect(field.status, field.text).toBe(200);
  });

  it("sees and changes nothing of another account's", async () => {
    const mine = await account(t.ctx, 'ACCOUNT_ADMIN');
    const theirs = await account(t.ctx, 'ACCOUNT_ADMIN');
    const id = theirs.record.id;
    expect((await mine.browser.get(`/v3/accounting/records/${id}`)).status).toBe(404);
    expect((await mine.browser.get(historyUrl(id))).status).toBe(404);
    expect((await mine.browser.get(SEARCH)).body.items.map((r: any) => r.id)).toEqual([mine.record.id]);
    const move = await mine.browser.post(reviewUrl(id), { review_status: 'READY_FOR_EXPORT' });
    expect(move.status).toBe(404);
    const bulk = await mine.browser.post('/internal/v1/accounting/records/review-status', {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id }],
    });
    expect(bulk.status).toBe(404);
    expect((await theirs.api.get(`/v3/accounting/records/${id}`)).body).toMatchObject({
      review_status: 'REVIEW',
      version: 1,
    });
    // The session of account A with the CSRF token of account B's session is refused.
    mine.browser.csrfToken = theirs.browser.csrfToken;
    const crossed = await mine.browser.post(reviewUrl(mine.record.id), { review_status: 'READY_FOR_EXPORT' });
    expect(crossed.status).toBe(403);
    expect(crossed.body.error_code).toBe('CSRF_TOKEN_INVALID');
  });

  it('ends the session on the server at sign-out: the cookie is useless afterwards', async () => {
    const { browser, user } = await account(t.ctx, 'BOOKKEEPER');
    browser.csrf = false;
    const noToken = await browser.delete(SESSION);
    expect(noToken.status).toBe(403);
    expect(await storedSessions(t.ctx, user.user_id)).toHaveLength(1);
    browser.csrf = true;
    const out = await browser.delete(SESSION);
    expect(out.status).toBe(200);
    expect(out.body).toEqual({});
    expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
    for (const url of [SESSION, SEARCH]) {
      const res = await browser.get(url);
      expect(res.status).toBe(401);
      expect(res.body.error_code).toBe('UNAUTHORIZED');
    }
  });

  it('ends a session after its idle time, after its absolute lifetime, and when the user is disabled', async () => {
    for (const change of [
      { last_seen_at: Date.now() * 1000 - 31 * 60_000_000 },
      { expires_at: Date.now() * 1000 - 1 },
    ]) {
      const { browser, user } = await account(t.ctx, 'READ_ONLY');
      expect((await browser.get(SEARCH)).status).toBe(200);
      await t.ctx.db.direct.updateTable('user_sessions').set(change).where('user_id', '=', user.user_id).execute();
      expect((await browser.get(SEARCH)).status).toBe(401);
      expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
    }
    const { browser, user } = await account(t.ctx, 'ACCOUNT_ADMIN');
    const { usersService } = await import('../../src/modules/users/users.service.js');
    await usersService.disable(t.ctx.db, user.user_id);
    expect((await browser.get(SEARCH)).status).toBe(401);
    expect((await signIn(t.ctx, user.email, PASSWORD)).statusCode).toBe(401);
  });

  it('the maintenance sweep deletes ended sessions and expired links, and keeps the others', async () => {
    const { usersService } = await import('../../src/modules/users/users.service.js');
    const idle = await account(t.ctx, 'READ_ONLY');
    const live = await account(t.ctx, 'READ_ONLY');
    const now = Date.now() * 1000;
    await t.ctx.db.direct
      .updateTable('user_sessions')
      .set({ last_seen_at: now - 31 * 60_000_000 })
      .where('user_id', '=', idle.user.user_id)
      .execute();
    const invited = await usersService.create(t.ctx.db, {
      accountId: idle.user.account_id,
      email: `late.${Date.now()}@example.com`,
      role: 'READ_ONLY',
    });
    const waiting = await usersService.create(t.ctx.db, {
      accountId: idle.user.account_id,
      email: `waiting.${Date.now()}@example.com`,
      role: 'READ_ONLY',
    });
    const link = invited;
    await t.ctx.db.direct
      .updateTable('user_password_links')
      .set({ expires_at: now - 1 })
      .where('user_id', '=', invited.user.user_id)
      .execute();
    await usersService.deleteEnded(t.ctx.db, now, 30 * 60_000_000);
    expect(await storedSessions(t.ctx, idle.user.user_id)).toEqual([]);
    expect(await storedSessions(t.ctx, live.user.user_id)).toHaveLength(1);
    const links = (userId: string) =>
      t.ctx.db.direct.selectFrom('user_password_links').selectAll().where('user_id', '=', userId).execute();
    expect(await links(invited.user.user_id)).toEqual([]);
    expect(await links(waiting.user.user_id)).toHaveLength(1);
    const res = await t.ctx.app.inject({
      method: 'POST',
      url: '/auth/password',
      payload: { token: link.token, password: 'too late for this link' },
    });
    expect(JSON.parse(res.body).error_code).toBe('INVALID_PASSWORD_LINK');
    expect((await live.browser.get(SEARCH)).status).toBe(200);
  });

  it('ends the sessions of a user whose password was reset, even one saved after the reset', async () => {
    const { browser, user } = await account(t.ctx, 'BOOKKEEPER');
    expect((await browser.get(SEARCH)).status).toBe(200);
    // As a sign-in racing a reset would leave it: the session row is there, the password is gone.
    await t.ctx.db.direct
      .updateTable('users')
      .set({ password_hash: null })
      .where('user_id', '=', user.user_id)
      .execute();
    expect((await browser.get(SEARCH)).status).toBe(401);
    expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
  });

  it('takes a role change on the next request', async () => {
    const { browser, user, record } = await account(t.ctx, 'ACCOUNT_ADMIN');
    await t.ctx.db.direct.updateTable('users').set({ role: 'READ_ONLY' }).where('user_id', '=', user.user_id).execute();
    const res = await browser.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect(res.status).toBe(403);
    expect(res.body.details.role).toBe('READ_ONLY');
  });
});

describeEachDialect('console: password links', (t) => {
  it('sets the first password once; a refused password leaves the link usable; reset ends sessions', async () => {
    const { usersService } = await import('../../src/modules/users/users.service.js');
    const accountId = newAccountId();
    const link = await usersService.create(t.ctx.db, { accountId, email: 'Ann@Example.com', role: 'BOOKKEEPER' });
    expect(link.user).toMatchObject({ email: 'ann@example.com', status: 'INVITED', role: 'BOOKKEEPER' });
    const set = (password: string, token = link.token) =>
      t.ctx.app.inject({ method: 'POST', url: '/auth/password', payload: { token, password } });

    const short = await set('too short');
    expect(short.statusCode).toBe(400);
    expect(JSON.parse(short.body)).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '/password',
              message:
                'must be at least 15 characters: a few unrelated words make a long password that is easy to remember',
            },
          ],
        },
      }),
    );
    expect((await set('ann@example.com')).statusCode).toBe(400);
    const ok = await set(PASSWORD);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(JSON.parse(ok.body).user).toMatchObject({ status: 'ACTIVE' });
    const again = await set('another good password');
    expect(again.statusCode).toBe(400);
    expect(JSON.parse(again.body)).toEqual(errorBody('INVALID_PASSWORD_LINK'));
    expect((await signIn(t.ctx, 'ann@example.com', 'another good password')).statusCode).toBe(401);

    const browser = await Browser.signIn(t.ctx.app, {
      email: 'ann@example.com',
      password: PASSWORD,
      account_id: accountId,
      user_id: link.user.user_id,
    });
    const reset = await usersService.resetPassword(t.ctx.db, link.user.user_id);
    expect((await browser.get(SESSION)).status).toBe(401);
    expect((await signIn(t.ctx, 'ann@example.com', PASSWORD)).statusCode).toBe(401);
    expect((await set('a brand new password', reset.token)).statusCode).toBe(200);
    expect((await signIn(t.ctx, 'ann@example.com', 'a brand new password')).statusCode).toBe(200);

    // Two requests racing with one link: one sets the password.
    const race = await usersService.resetPassword(t.ctx.db, link.user.user_id);
    const both = await Promise.all([
      set('first racing password', race.token),
      set('second racing password', race.token),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });

  it('refuses a second user with the same email, whatever its case', async () => {
    const { usersService } = await import('../../src/modules/users/users.service.js');
    await usersService.create(t.ctx.db, { accountId: newAccountId(), email: 'dup@example.com', role: 'READ_ONLY' });
    await expect(
      usersService.create(t.ctx.db, { accountId: newAccountId(), email: 'DUP@example.com', role: 'READ_ONLY' }),
    ).rejects.toMatchObject({ code: 'CONFLICT', status: 409 });
  });
});

describeEachDialect('console: served over https, and the sign-in budget', (t) => {
  it('sets a __Host- cookie that is Secure and SameSite=Strict, with HSTS, when PUBLIC_URL is https', async () => {
    const app = await t.ctx.secondApp({ PUBLIC_URL: 'https://svc.example.com', TRUST_PROXY: 'loopback' });
    const user = await newUser(t.ctx.db, 'READ_ONLY');
    const res = await app.inject({
      method: 'POST',
      url: SESSION,
      payload: { email: user.email, password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^__Host-svc_session=[^;]+; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    const cookie = setCookie.split(';')[0]!;
    const me = await app.inject({ method: 'GET', url: SEARCH, headers: { cookie, 'x-forwarded-proto': 'https' } });
    expect(me.statusCode).toBe(200);
    // The plain name means nothing on such a server.
    const plain = cookie.replace('__Host-svc_session=', 'svc_session=');
    expect((await app.inject({ method: 'GET', url: SEARCH, headers: { cookie: plain } })).statusCode).toBe(401);
  });

  it('counts sign-ins and password links per client address before any password is hashed', async () => {
    // A window starts with its first request: an hour does not end during the test.
    const window = '3600';
    const app = await t.ctx.secondApp({
      SIGN_IN_RATE_LIMIT_MAX: '3',
      RATE_LIMIT_WINDOW_SECONDS: window,
      TRUST_PROXY: 'loopback',
    });
    const attempt = (ip: string) =>
      app.inject({
        method: 'POST',
        url: SESSION,
        payload: { email: 'nobody@example.com', password: 'wrong password here' },
        headers: { 'x-forwarded-for': ip },
      });
    for (let i = 0; i < 3; i++) expect((await attempt('203.0.113.7')).statusCode).toBe(401);
    const limited = await attempt('203.0.113.7');
    expect(limited.statusCode).toBe(429);
    expect(JSON.parse(limited.body)).toEqual(errorBody('RATE_LIMITED'));
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const link = await app.inject({
      method: 'POST',
      url: '/auth/password',
      payload: { token: 'svc_pl_nothing', password: 'a long enough password' },
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(link.statusCode).toBe(429);
    // Another address has its own budget.
    expect((await attempt('198.51.100.9')).statusCode).toBe(401);
  });
});

describeEachDialect('console: pages and headers', (t) => {
  it('serves the console with a strict CSP that forbids framing; hashed assets are cached for a year', async () => {
    expect((await t.ctx.app.inject({ method: 'POST', url: '/console/queue' })).statusCode).toBe(404);
    const session = await t.ctx.app.inject({ method: 'GET', url: SESSION });
    expect(session.statusCode).toBe(401);
    const page = await t.ctx.app.inject({ method: 'GET', url: '/console/queue' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = /\/console\/assets\/[^"]+\.js/.exec(page.body)![0];
    const js = await t.ctx.app.inject({ method: 'GET', url: asset });
    expect(js.statusCode).toBe(200);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await t.ctx.app.inject({ method: 'GET', url: '/console/assets/gone-1234.js' });
    expect(missing.statusCode).toBe(404);
    expect((await t.ctx.app.inject({ method: 'GET', url: '/console' })).headers.location).toBe('/console/');
  });

  it('keeps the API free of session work: a bearer request carries no session cookie back', async () => {
    const api = await t.ctx.as(['accounting.record.read']);
    const res = await api.get('/v3/accounting/records');
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});
