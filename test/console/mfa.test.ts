import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { advanceClock, freezeClock } from '../../src/lib/clock.js';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';
import { enrolTotp, nextTotpStep, seconds, totpCode } from '../support/mfa.js';

// Codes are computed from the service's clock, which moves only when a test moves it.
freezeClock();

const SEARCH = '/internal/v1/accounting/records';
const INVALID_CODE = errorBody('INVALID_MFA_CODE', {
  message:
    'The code is not valid: it is wrong, expired or already used. Enter the current code of your authenticator app, or an unused recovery code.',
  details: { errors: [{ path: '/code', message: 'is not a valid code' }] },
});

const storedTotp = (ctx: TestContext, userId: string) =>
  ctx.db.direct.selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
const storedCodes = (ctx: TestContext, userId: string) =>
  ctx.db.direct.selectFrom('user_recovery_codes').selectAll().where('user_id', '=', userId).execute();
const storedSessions = (ctx: TestContext, userId: string) =>
  ctx.db.direct.selectFrom('user_sessions').selectAll().where('user_id', '=', userId).execute();

/** A user who has set up an authenticator, signed out again: their secret and recovery codes. */
async function enrolled(ctx: TestContext, role: 'ACCOUNT_ADMIN' | 'BOOKKEEPER' = 'BOOKKEEPER') {
  const user = await newUser(ctx.db, role);
  const browser = await Browser.signIn(ctx.app, user);
  const { secret, recoveryCodes } = await enrolTotp(browser);
  expect((await browser.delete('/auth/session')).status).toBe(200);
  // The code that confirmed the set-up is used: the next one comes from the next step.
  nextTotpStep();
  return { user, secret, recoveryCodes };
}

describeEachDialect('console: two-step sign-in (TOTP and recovery codes)', (t) => {
  it('sets up an authenticator: a secret as an otpauth URI, confirmed by a code; ten recovery codes shown once, stored hashed', async () => {
    const user = await newUser(t.ctx.db, 'BOOKKEEPER');
    const browser = await Browser.signIn(t.ctx.app, user);
    expect(browser.step).toBe('SIGNED_IN');
    expect((await browser.get('/auth/mfa')).body).toEqual({
      totp_enrolled: false,
      passkeys: 0,
      recovery_codes_left: 0,
      required_by_account: false,
    });

    const started = await browser.post('/auth/mfa/totp', {});
    expect(started.status, started.text).toBe(200);
    expect(started.headers['cache-control']).toBe('no-store');
    const secret: string = started.body.secret;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.body.otpauth_uri).toBe(
      `otpauth://totp/svc:${encodeURIComponent(user.email)}?issuer=svc&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
    );
    expect(await storedTotp(t.ctx, user.user_id)).toMatchObject({ secret, confirmed_at: null, last_used_step: null });

    const wrong = await browser.post('/auth/mfa/totp/confirm', { code: totpCode(secret, 1_000_000) });
    expect([wrong.status, wrong.body]).toEqual([400, INVALID_CODE]);
    expect((await storedTotp(t.ctx, user.user_id))?.confirmed_at).toBeNull();

    const confirmed = await browser.post('/auth/mfa/totp/confirm', { code: totpCode(secret) });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.headers['cache-control']).toBe('no-store');
    const codes: string[] = confirmed.body.recovery_codes;
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    expect(new Set(codes).size).toBe(10);
    // Signed in already: the session stays as it was.
    expect(confirmed.body.session).toMatchObject({
      step: 'SIGNED_IN',
      user: { user_id: user.user_id, mfa_enrolled: true },
    });
    expect((await browser.get(SEARCH)).status).toBe(200);

    const stored = await storedCodes(t.ctx, user.user_id);
    const hash = (code: string) => createHash('sha256').update(code.replaceAll('-', '')).digest('hex');
    expect(stored.map((r) => r.code_hash).sort()).toEqual(codes.map(hash).sort());
    expect(JSON.stringify(stored)).not.toContain(codes[0]!.replaceAll('-', ''));
    expect(await storedTotp(t.ctx, user.user_id)).toMatchObject({ confirmed_at: expect.anything() });
    expect((await browser.get('/auth/mfa')).body).toEqual({
      totp_enrolled: true,
      passkeys: 0,
      recovery_codes_left: 10,
      required_by_account: false,
    });
    // A second set-up is refused: an admin resets a lost one.
    const again = await browser.post('/auth/mfa/totp', {});
    expect([again.status, again.body.error_code]).toEqual([409, 'CONFLICT']);
    expect((await storedTotp(t.ctx, user.user_id))?.secret).toBe(secret);
  });

  it('signs in with the password, then a code: halfway the session calls nothing; the code signs it in under a new id', async () => {
    const { user, secret } = await enrolled(t.ctx);
    const halfway = await Browser.signIn(t.ctx.app, user);
    expect(halfway.step).toBe('MFA_CODE');
    const pendingCookie = halfway.cookie;
    // Not signed in: the API, the set-up and the status answer as without a session.
    expect((await halfway.get(SEARCH)).status).toBe(401);
    expect((await halfway.get('/auth/mfa')).status).toBe(401);
    expect((await halfway.post('/auth/mfa/totp', {})).status).toBe(401);
    const session = await halfway.get('/auth/session');
    expect(session.body).toMatchObject({ step: 'MFA_CODE', user: { user_id: user.user_id, mfa_enrolled: true } });
    // Halfway, the session may call nothing: it carries no scopes.
    expect(session.body.scopes).toBeUndefined();
    const stored = await storedSessions(t.ctx, user.user_id);
    expect(stored).toHaveLength(1);
    // A sign-in halfway ends 15 minutes after its password.
    expect(Number(stored[0]!.expires_at) - Number(stored[0]!.created_at)).toBe(15 * 60 * 1_000_000);

    const verified = await halfway.post('/auth/mfa/verify', { code: totpCode(secret) });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body).toEqual({
      used: 'TOTP',
      recovery_codes_left: 10,
      session: {
        user: expect.objectContaining({ user_id: user.user_id }),
        step: 'SIGNED_IN',
        csrf_token: expect.any(String),
        expires_at: expect.stringMatching(ISO_MICROS),
        scopes: expect.arrayContaining(['accounting.record.review']),
      },
    });
    expect(halfway.cookie).not.toBe(pendingCookie);
    expect((await halfway.get(SEARCH)).status).toBe(200);
    // The halfway session's id is gone: it never becomes signed in.
    const old = await t.ctx.app.inject({ method: 'GET', url: SEARCH, headers: { cookie: pendingCookie! } });
    expect(old.statusCode).toBe(401);
    expect(await storedSessions(t.ctx, user.user_id)).toHaveLength(1);
  });

  it('refuses a code used before (a replay), in its own window and after; the next step’s code works', async () => {
    const { user, secret } = await enrolled(t.ctx);
    const first = await Browser.signIn(t.ctx.app, user);
    const code = totpCode(secret);
    expect((await first.post('/auth/mfa/verify', { code })).status).toBe(200);

    const second = await Browser.signIn(t.ctx.app, user);
    const replayed = await second.post('/auth/mfa/verify', { code });
    expect([replayed.status, replayed.body]).toEqual([400, INVALID_CODE]);
    expect((await second.get(SEARCH)).status).toBe(401);
    // Thirty seconds on, the old code is still within the accepted window, and still refused.
    nextTotpStep();
    expect((await second.post('/auth/mfa/verify', { code })).status).toBe(400);
    expect((await second.post('/auth/mfa/verify', { code: totpCode(secret) })).status).toBe(200);
    expect((await second.get(SEARCH)).status).toBe(200);

    // Two requests racing with one code: one is accepted.
    nextTotpStep();
    const [a, b] = [await Browser.signIn(t.ctx.app, user), await Browser.signIn(t.ctx.app, user)];
    const raced = await Promise.all(
      [a, b].map((browser) => browser.post('/auth/mfa/verify', { code: totpCode(secret) })),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('counts wrong codes: after 5 the second step is refused with growing delays, even for the right code', async () => {
    const { user, secret } = await enrolled(t.ctx);
    const browser = await Browser.signIn(t.ctx.app, user);
    const wrong = () => browser.post('/auth/mfa/verify', { code: totpCode(secret, seconds(3600)) });
    for (let i = 0; i < 5; i++) expect((await wrong()).status).toBe(400);
    const refused = await browser.post('/auth/mfa/verify', { code: totpCode(secret) });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(errorBody('SIGN_IN_LOCKED', { details: { retry_after_seconds: 1 } }));
    expect(refused.headers['retry-after']).toBe('1');
    advanceClock(seconds(1));
    expect((await wrong()).status).toBe(400);
    const longer = await wrong();
    expect([longer.status, longer.headers['retry-after']]).toEqual([429, '2']);
    // Another address changes nothing: the count is the user's.
    browser.ip = '198.51.100.77';
    expect((await wrong()).headers['retry-after']).toBe('2');
    advanceClock(seconds(2));
    expect((await browser.post('/auth/mfa/verify', { code: totpCode(secret) })).status).toBe(200);
    expect((await browser.get(SEARCH)).status).toBe(200);
  });

  it('signs in with a recovery code once: it is used up, the others still work', async () => {
    const { user, recoveryCodes } = await enrolled(t.ctx);
    const browser = await Browser.signIn(t.ctx.app, user);
    const used = await browser.post('/auth/mfa/verify', { code: recoveryCodes[3]!.toUpperCase() });
    expect(used.status, used.text).toBe(200);
    expect(used.body).toMatchObject({ used: 'RECOVERY_CODE', recovery_codes_left: 9, session: { step: 'SIGNED_IN' } });
    expect((await browser.get(SEARCH)).status).toBe(200);
    const rows = await storedCodes(t.ctx, user.user_id);
    expect(rows.filter((r) => r.used_at !== null)).toHaveLength(1);

    const again = await Browser.signIn(t.ctx.app, user);
    const reused = await again.post('/auth/mfa/verify', { code: recoveryCodes[3]! });
    expect([reused.status, reused.body]).toEqual([400, INVALID_CODE]);
    const other = await again.post('/auth/mfa/verify', { code: recoveryCodes[4]!.replaceAll('-', ' ') });
    expect([other.status, other.body.recovery_codes_left]).toEqual([200, 8]);
    expect((await again.get('/auth/mfa')).body.recovery_codes_left).toBe(8);
  });

  it('renews the recovery codes for a current code: the old ones stop working', async () => {
    const { user, secret, recoveryCodes } = await enrolled(t.ctx);
    const browser = await Browser.signIn(t.ctx.app, user);
    expect((await browser.post('/auth/mfa/verify', { code: recoveryCodes[0]! })).status).toBe(200);
    expect((await browser.post('/auth/mfa/recovery-codes', { code: '000000' })).status).toBe(400);
    const renewed = await browser.post('/auth/mfa/recovery-codes', { code: totpCode(secret) });
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body.recovery_codes).toHaveLength(10);
    expect(renewed.body.recovery_codes).not.toContain(recoveryCodes[1]);
    expect((await browser.get('/auth/mfa')).body.recovery_codes_left).toBe(10);
    const next = await Browser.signIn(t.ctx.app, user);
    expect((await next.post('/auth/mfa/verify', { code: recoveryCodes[1]! })).status).toBe(400);
    expect((await next.post('/auth/mfa/verify', { code: renewed.body.recovery_codes[0] })).status).toBe(200);
  });

  it('refuses every write of two-step sign-in without the CSRF token, and changes nothing', async () => {
    const { user, secret } = await enrolled(t.ctx);
    const halfway = await Browser.signIn(t.ctx.app, user);
    halfway.csrf = false;
    const verify = await halfway.post('/auth/mfa/verify', { code: totpCode(secret) });
    expect([verify.status, verify.body]).toEqual([403, errorBody('CSRF_TOKEN_INVALID')]);
    halfway.csrf = true;
    expect((await halfway.get(SEARCH)).status).toBe(401);
    expect((await halfway.post('/auth/mfa/verify', { code: totpCode(secret) })).status).toBe(200);
    halfway.csrf = false;
    const renew = await halfway.post('/auth/mfa/recovery-codes', { code: totpCode(secret) });
    expect(renew.status).toBe(403);

    const other = await newUser(t.ctx.db, 'READ_ONLY');
    const browser = await Browser.signIn(t.ctx.app, other);
    browser.csrf = false;
    for (const url of ['/auth/mfa/totp', '/auth/mfa/totp/confirm']) {
      const res = await browser.post(url, { code: '123456' });
      expect([url, res.status, res.body.error_code]).toEqual([url, 403, 'CSRF_TOKEN_INVALID']);
    }
    expect(await storedTotp(t.ctx, other.user_id)).toBeUndefined();
  });

  it('ends a sign-in halfway 15 minutes after its password', async () => {
    const { user, secret } = await enrolled(t.ctx);
    const halfway = await Browser.signIn(t.ctx.app, user);
    advanceClock(seconds(14 * 60));
    expect((await halfway.get('/auth/session')).body.step).toBe('MFA_CODE');
    advanceClock(seconds(60));
    const late = await halfway.get('/auth/session');
    expect([late.status, late.body.error_code]).toEqual([401, 'UNAUTHORIZED']);
    expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
    // Without its session there is no CSRF secret either: the code is refused before it is looked at.
    expect((await halfway.post('/auth/mfa/verify', { code: totpCode(secret) })).status).toBe(403);
  });
});
