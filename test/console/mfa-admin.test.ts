import { expect, it } from 'vitest';
import { freezeClock } from '../../src/lib/clock.js';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';
import { enrolTotp, nextTotpStep, totpCode } from '../support/mfa.js';

// Codes are computed from the service's clock, which moves only when a test moves it.
freezeClock();

const SEARCH = '/internal/v1/accounting/records';
const SETTINGS = '/internal/v1/account/user-settings';
const USERS = '/internal/v1/users';
const resetUrl = (userId: string) => `/internal/v1/users/${userId}/mfa`;

const storedMfa = async (ctx: TestContext, userId: string) => ({
  totp: await ctx.db.direct.selectFrom('user_totp').select('user_id').where('user_id', '=', userId).execute(),
  codes: await ctx.db.direct
    .selectFrom('user_recovery_codes')
    .select('user_id')
    .where('user_id', '=', userId)
    .execute(),
});
const storedSettings = (ctx: TestContext, accountId: string) =>
  ctx.db.direct.selectFrom('account_user_settings').selectAll().where('account_id', '=', accountId).execute();

/** An account with an admin who has set up two-step sign-in (signed in), and a bookkeeper who has too. */
async function account(ctx: TestContext) {
  const adminUser = await newUser(ctx.db, 'ACCOUNT_ADMIN');
  const admin = await Browser.signIn(ctx.app, adminUser);
  await enrolTotp(admin);
  const bookkeeperUser = await newUser(ctx.db, 'BOOKKEEPER', adminUser.account_id);
  const bookkeeper = await Browser.signIn(ctx.app, bookkeeperUser);
  const bookkeeperMfa = await enrolTotp(bookkeeper);
  nextTotpStep();
  return { adminUser, admin, bookkeeperUser, bookkeeper, bookkeeperMfa };
}

describeEachDialect('console: an account admin and two-step sign-in', (t) => {
  it("lists the account's users with whether each has set up two-step sign-in", async () => {
    const { adminUser, admin, bookkeeperUser } = await account(t.ctx);
    const reader = await newUser(t.ctx.db, 'READ_ONLY', adminUser.account_id);
    await newUser(t.ctx.db, 'READ_ONLY'); // another account's
    const res = await admin.get(USERS);
    expect(res.status, res.text).toBe(200);
    const byEmail = (a: { email: string }, b: { email: string }) => a.email.localeCompare(b.email);
    expect(res.body.items).toEqual(
      [
        { user: adminUser, role: 'ACCOUNT_ADMIN', mfa: true },
        { user: bookkeeperUser, role: 'BOOKKEEPER', mfa: true },
        { user: reader, role: 'READ_ONLY', mfa: false },
      ]
        .map(({ user, role, mfa }) => ({
          user_id: user.user_id,
          account_id: user.account_id,
          email: user.email,
          role,
          status: 'ACTIVE',
          mfa_enrolled: mfa,
          created_at: expect.stringMatching(ISO_MICROS),
        }))
        .sort(byEmail),
    );
  });

  it("resets a user's two-step sign-in: authenticator and codes gone, sessions ended, the password alone signs in", async () => {
    const { admin, bookkeeperUser, bookkeeper } = await account(t.ctx);
    expect((await bookkeeper.get(SEARCH)).status).toBe(200);
    const res = await admin.delete(resetUrl(bookkeeperUser.user_id));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ user_id: bookkeeperUser.user_id, mfa_enrolled: false });
    expect(await storedMfa(t.ctx, bookkeeperUser.user_id)).toEqual({ totp: [], codes: [] });
    expect((await bookkeeper.get(SEARCH)).status).toBe(401);
    const again = await Browser.signIn(t.ctx.app, bookkeeperUser);
    expect(again.step).toBe('SIGNED_IN');
    expect((await again.get(SEARCH)).status).toBe(200);
    // The admin's own is untouched.
    expect((await admin.get(SEARCH)).status).toBe(200);
  });

  it("answers 404 to another account's admin, and changes nothing", async () => {
    const { bookkeeperUser, bookkeeper } = await account(t.ctx);
    const stranger = await newUser(t.ctx.db, 'ACCOUNT_ADMIN');
    const browser = await Browser.signIn(t.ctx.app, stranger);
    for (const userId of [bookkeeperUser.user_id, 'usr_unknown']) {
      const res = await browser.delete(resetUrl(userId));
      expect(res.status).toBe(404);
      expect(res.body).toEqual(
        errorBody('NOT_FOUND', { message: `User ${userId} not found.`, details: { user_id: userId } }),
      );
    }
    expect(await storedMfa(t.ctx, bookkeeperUser.user_id)).toEqual({
      totp: [{ user_id: bookkeeperUser.user_id }],
      codes: Array.from({ length: 10 }, () => ({ user_id: bookkeeperUser.user_id })),
    });
    expect((await bookkeeper.get(SEARCH)).status).toBe(200);
    expect((await browser.get(USERS)).body.items.map((u: { user_id: string }) => u.user_id)).toEqual([
      stranger.user_id,
    ]);
  });

  it('lets only an account admin in the console read or change the setting, list users or reset: 403 for the others', async () => {
    const { adminUser, bookkeeperUser, bookkeeper } = await account(t.ctx);
    const reader = await newUser(t.ctx.db, 'READ_ONLY', adminUser.account_id);
    const readOnly = await Browser.signIn(t.ctx.app, reader);
    for (const [browser, role] of [
      [bookkeeper, 'BOOKKEEPER'],
      [readOnly, 'READ_ONLY'],
    ] as const) {
      for (const [method, url, body] of [
        ['PUT', SETTINGS, { mfa_required: true }],
        ['GET', SETTINGS, undefined],
        ['GET', USERS, undefined],
        ['DELETE', resetUrl(bookkeeperUser.user_id), undefined],
      ] as const) {
        const res = await browser.request(method, url, { body });
        expect({ role, method, url, status: res.status }).toEqual({ role, method, url, status: 403 });
        expect(res.body).toEqual(
          errorBody('FORBIDDEN', {
            message: `Your role (${role}) does not allow this operation.`,
            details: { role, required_scopes: ['account.admin'] },
          }),
        );
      }
    }
    // An API client of the account, even with account.admin: a person's sign-in is the console's alone.
    const api = await t.ctx.as(['account.admin'], adminUser.account_id);
    for (const res of [
      await api.put(SETTINGS, { mfa_required: true }),
      await api.delete(resetUrl(bookkeeperUser.user_id)),
    ]) {
      expect([res.status, res.body.error_code]).toEqual([403, 'FORBIDDEN']);
    }
    expect(await storedSettings(t.ctx, adminUser.account_id)).toEqual([]);
    expect((await storedMfa(t.ctx, bookkeeperUser.user_id)).totp).toHaveLength(1);
  });

  it('refuses the admin writes without the CSRF token (403), and changes nothing', async () => {
    const { adminUser, admin, bookkeeperUser } = await account(t.ctx);
    admin.csrf = false;
    for (const res of [
      await admin.put(SETTINGS, { mfa_required: true }),
      await admin.delete(resetUrl(bookkeeperUser.user_id)),
    ]) {
      expect([res.status, res.body]).toEqual([403, errorBody('CSRF_TOKEN_INVALID')]);
    }
    expect(await storedSettings(t.ctx, adminUser.account_id)).toEqual([]);
    expect((await storedMfa(t.ctx, bookkeeperUser.user_id)).totp).toHaveLength(1);
  });

  it('requires two-step sign-in: sessions without it end; the next sign-in sets it up before anything else', async () => {
    const { adminUser, admin, bookkeeper } = await account(t.ctx);
    const reader = await newUser(t.ctx.db, 'READ_ONLY', adminUser.account_id);
    const readOnly = await Browser.signIn(t.ctx.app, reader);
    const outsider = await newUser(t.ctx.db, 'READ_ONLY');
    const outside = await Browser.signIn(t.ctx.app, outsider);
    expect((await admin.get(SETTINGS)).body).toEqual({ mfa_required: false, updated_at: null });

    const res = await admin.put(SETTINGS, { mfa_required: true });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ mfa_required: true, updated_at: expect.stringMatching(ISO_MICROS) });
    expect(await storedSettings(t.ctx, adminUser.account_id)).toEqual([
      expect.objectContaining({ mfa_required: 1, updated_by: adminUser.user_id }),
    ]);
    expect((await admin.get(SETTINGS)).body).toEqual(res.body);
    // Who has set it up keeps their session; who has not is signed out at once; other accounts are untouched.
    expect((await admin.get(SEARCH)).status).toBe(200);
    expect((await bookkeeper.get(SEARCH)).status).toBe(200);
    expect((await readOnly.get(SEARCH)).status).toBe(401);
    expect((await outside.get(SEARCH)).status).toBe(200);

    const halfway = await Browser.signIn(t.ctx.app, reader);
    expect(halfway.step).toBe('MFA_ENROLMENT');
    for (const url of [SEARCH, '/v1/fields', '/v3/accounting/records'])
      expect((await halfway.get(url)).status).toBe(401);
    expect((await halfway.get('/auth/mfa')).body).toEqual({
      totp_enrolled: false,
      passkeys: 0,
      recovery_codes_left: 0,
      required_by_account: true,
    });
    const halfwayCookie = halfway.cookie;
    const started = await halfway.post('/auth/mfa/totp', {});
    expect(started.status, started.text).toBe(200);
    const confirmed = await halfway.post('/auth/mfa/totp/confirm', { code: totpCode(started.body.secret) });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.recovery_codes).toHaveLength(10);
    expect(confirmed.body.session).toMatchObject({ step: 'SIGNED_IN', user: { mfa_enrolled: true } });
    // Signed in now, under a new id.
    expect(halfway.cookie).not.toBe(halfwayCookie);
    expect((await halfway.get(SEARCH)).status).toBe(200);

    // The next sign-in asks for a code, as for anyone who has set it up.
    nextTotpStep();
    const next = await Browser.signIn(t.ctx.app, reader);
    expect(next.step).toBe('MFA_CODE');

    // Turned off again: each user's own choice; nobody is signed out.
    const off = await admin.put(SETTINGS, { mfa_required: false });
    expect(off.body.mfa_required).toBe(false);
    expect((await halfway.get(SEARCH)).status).toBe(200);
    const newcomer = await newUser(t.ctx.db, 'READ_ONLY', adminUser.account_id);
    expect((await Browser.signIn(t.ctx.app, newcomer)).step).toBe('SIGNED_IN');
  });

  it('refuses to require two-step sign-in from an admin who has not set it up (409), and changes nothing', async () => {
    const adminUser = await newUser(t.ctx.db, 'ACCOUNT_ADMIN');
    const admin = await Browser.signIn(t.ctx.app, adminUser);
    const res = await admin.put(SETTINGS, { mfa_required: true });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(errorBody('CONFLICT', { details: { user_id: adminUser.user_id } }));
    expect(await storedSettings(t.ctx, adminUser.account_id)).toEqual([]);
    expect((await admin.get(SEARCH)).status).toBe(200);
  });
});
