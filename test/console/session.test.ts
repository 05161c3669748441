import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { newUser, PASSWORD, SESSION, sessionCookie, signIn, storedSessions } from '../support/console.js';
import { describeEachDialect, newAccountId, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';
import { SEARCH } from '../support/review.js';

const hash = (cookie: string) => {
  // "svc_session=<id>.<signature>": the store keys sessions by the SHA-256 of the id alone.
  const value = decodeURIComponent(cookie.slice('svc_session='.length));
  return createHash('sha256')
    .update(value.slice(0, value.lastIndexOf('.')))
    .digest('hex');
};
const storedUser = (ctx: TestContext, userId: string) =>
  ctx.db.direct.selectFrom('users').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();

describeEachDialect('console: sign-in and sessions', (t) => {
  it('signs in: the user, a CSRF token, and an HttpOnly SameSite cookie whose id is stored only as a hash', async () => {
    const user = await newUser(t.ctx.db, 'BOOKKEEPER');
    const asked = Date.now();
    const res = await signIn(t.ctx, user.email.toUpperCase(), PASSWORD);
    const answered = Date.now();
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
      // The role's scopes: the console offers what they allow (the server decides on every request).
      scopes: [
        'fields.read',
        'field_values.read',
        'accounting.record.read',
        'accounting.integration.read',
        'field_values.write',
        'accounting.record.review',
      ],
    });
    const setCookie = String(res.headers['set-cookie']);
    expect(res.headers['cache-control']).toBe('no-store');
    // Over plain HTTP `secure: 'auto'` leaves out Secure and relaxes SameSite=Strict to Lax (docs/console.md).
    const attributes = /^svc_session=[^;]+; Path=\/; Expires=([^;]+); HttpOnly; SameSite=Lax$/.exec(setCookie);
    expect(attributes, setCookie).not.toBeNull();
    // 12 hours after the sign-in (the cookie's Expires, in whole seconds): between the asking and the answer.
    const expires = Date.parse(attributes![1]!);
    expect(expires).toBeGreaterThanOrEqual(Math.floor((asked + 12 * 3600_000) / 1000) * 1000);
    expect(expires).toBeLessThanOrEqual(answered + 12 * 3600_000);
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
