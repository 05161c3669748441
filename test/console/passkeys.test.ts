import { expect, it } from 'vitest';
import { freezeClock } from '../../src/lib/clock.js';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';
import {
  addPasskey,
  enrolTotp,
  INVALID_PASSKEY,
  PASSKEY_ORIGIN,
  storedPasskeys,
  verifyWithPasskey,
  withPasskey,
} from '../support/mfa.js';
import { SoftAuthenticator } from '../support/webauthn.js';

// TOTP codes (enrolTotp) are computed on the service's clock, which only tests move.
freezeClock();

const SEARCH = '/internal/v1/accounting/records';

const storedChallenges = (ctx: TestContext, userId: string) =>
  ctx.db.direct
    .selectFrom('user_sessions')
    .select(['passkey_challenge', 'passkey_ceremony'])
    .where('user_id', '=', userId)
    .execute();
const auditOf = async (admin: Browser, action: string) =>
  (await admin.get('/internal/v1/audit-events', { 'action[]': action })).body.items;

describeEachDialect(
  'console: passkeys as a second factor (WebAuthn): adding and removing them',
  (t) => {
    it("registers passkeys with a name: PUBLIC_URL's relying party, the public key stored, recovery codes with the first", async () => {
      const user = await newUser(t.ctx.db, 'ACCOUNT_ADMIN');
      const browser = await Browser.signIn(t.ctx.app, user);
      const options = await browser.post('/auth/mfa/passkeys/registration-options', {});
      expect(options.status, options.text).toBe(200);
      expect(options.body).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        rp: { name: 'svc', id: 'localhost' },
        user: { id: Buffer.from(user.user_id).toString('base64url'), name: user.email, displayName: user.email },
        pubKeyCredParams: [
          { alg: -8, type: 'public-key' },
          { alg: -7, type: 'public-key' },
          { alg: -257, type: 'public-key' },
        ],
        timeout: 300_000,
        attestation: 'none',
        excludeCredentials: [],
        authenticatorSelection: { residentKey: 'preferred', requireResidentKey: false, userVerification: 'preferred' },
        extensions: { credProps: true },
        hints: [],
      });
      // Kept on the session's row, server-side.
      expect(await storedChallenges(t.ctx, user.user_id)).toEqual([
        { passkey_challenge: options.body.challenge, passkey_ceremony: 'REGISTRATION' },
      ]);

      const key = new SoftAuthenticator(PASSKEY_ORIGIN);
      const credential = key.register(options.body);
      const added = await browser.post('/auth/mfa/passkeys', { name: '  YubiKey 5  ', credential });
      expect(added.status, added.text).toBe(200);
      const passkey = {
        passkey_id: expect.stringMatching(/^pky_/),
        name: 'YubiKey 5',
        created_at: expect.stringMatching(ISO_MICROS),
        last_used_at: null,
      };
      expect(added.body).toEqual({
        passkey,
        recovery_codes: expect.any(Array),
        session: expect.objectContaining({ step: 'SIGNED_IN', user: expect.objectContaining({ mfa_enrolled: true }) }),
      });
      expect(added.body.recovery_codes).toHaveLength(10);
      const stored = await storedPasskeys(t.ctx, user.user_id);
      expect(stored).toEqual([
        expect.objectContaining({
          passkey_id: added.body.passkey.passkey_id,
          credential_id: key.id,
          public_key: key.coseKey().toString('base64url'),
          transports: '["usb"]',
          name: 'YubiKey 5',
        }),
      ]);
      expect(Number(stored[0]!.counter)).toBe(0);
      expect(await storedChallenges(t.ctx, user.user_id)).toEqual([
        { passkey_challenge: null, passkey_ceremony: null },
      ]);

      // A name of spaces alone is no name.
      const blank = await browser.post('/auth/mfa/passkeys', { name: '   ', credential });
      expect([blank.status, blank.body.details.errors]).toEqual([
        400,
        [{ path: '/name', message: 'must not be only spaces' }],
      ]);
      // The same answer again: its challenge is used up.
      const replayed = await browser.post('/auth/mfa/passkeys', { name: 'Again', credential });
      expect([replayed.status, replayed.body]).toEqual([400, INVALID_PASSKEY]);

      // A second one: the first is excluded, and the recovery codes stay as they are.
      const next = await browser.post('/auth/mfa/passkeys/registration-options', {});
      expect(next.body.excludeCredentials).toEqual([{ id: key.id, type: 'public-key', transports: ['usb'] }]);
      expect(next.body.challenge).not.toBe(options.body.challenge);
      const laptop = await browser.post('/auth/mfa/passkeys', {
        name: 'Work laptop',
        credential: new SoftAuthenticator(PASSKEY_ORIGIN).register(next.body),
      });
      expect([laptop.status, laptop.body.recovery_codes]).toEqual([200, null]);

      expect((await browser.get('/auth/mfa')).body).toEqual({
        totp_enrolled: false,
        passkeys: 2,
        recovery_codes_left: 10,
        required_by_account: false,
      });
      const list = await browser.get('/auth/mfa/passkeys');
      expect(list.body).toEqual({ items: [added.body.passkey, laptop.body.passkey] });
      const users = await browser.get('/internal/v1/users');
      expect(users.body.items).toEqual([expect.objectContaining({ user_id: user.user_id, mfa_enrolled: true })]);

      const audited = await auditOf(browser, 'user.passkey_added');
      expect(audited.map((e: any) => [e.actor, e.target, e.details])).toEqual([
        [
          { type: 'user', id: user.user_id, name: user.email },
          { type: 'user', id: user.user_id },
          { passkey_id: laptop.body.passkey.passkey_id, name: 'Work laptop' },
        ],
        [
          { type: 'user', id: user.user_id, name: user.email },
          { type: 'user', id: user.user_id },
          { passkey_id: added.body.passkey.passkey_id, name: 'YubiKey 5' },
        ],
      ]);
      expect(audited[1].request_id).toBe(added.headers['x-request-id']);
      // Never a key, nor anything of the credential, in the log.
      expect(JSON.stringify(audited)).not.toContain(key.id);
    });

    it('removes passkeys: the last factor under the requirement is 409, another user’s is 404, the CSRF token is needed', async () => {
      const { user, key, passkeyId } = await withPasskey(t.ctx, 'ACCOUNT_ADMIN');
      const admin = await Browser.signIn(t.ctx.app, user);
      expect((await verifyWithPasskey(admin, key)).status).toBe(200);
      const spare = (await addPasskey(admin, new SoftAuthenticator(PASSKEY_ORIGIN), 'Spare')).passkey.passkey_id;
      // A passkey is two-step sign-in: the admin may require it of everyone.
      const required = await admin.put('/internal/v1/account/user-settings', { mfa_required: true });
      expect(required.status, required.text).toBe(200);

      admin.csrf = false;
      const forged = await admin.delete(`/auth/mfa/passkeys/${spare}`);
      expect([forged.status, forged.body]).toEqual([403, errorBody('CSRF_TOKEN_INVALID')]);
      for (const url of ['/auth/mfa/passkeys/registration-options', '/auth/mfa/passkeys']) {
        const res = await admin.post(url, {});
        expect([url, res.status, res.body.error_code]).toEqual([url, 403, 'CSRF_TOKEN_INVALID']);
      }
      admin.csrf = true;
      expect(await storedPasskeys(t.ctx, user.user_id)).toHaveLength(2);

      // Another account's admin: the passkey is not theirs to see or remove, nor the user to reset.
      const stranger = await withPasskey(t.ctx, 'ACCOUNT_ADMIN');
      const other = await Browser.signIn(t.ctx.app, stranger.user);
      expect((await verifyWithPasskey(other, stranger.key)).status).toBe(200);
      const theirs = await other.delete(`/auth/mfa/passkeys/${spare}`);
      expect([theirs.status, theirs.body.error_code]).toEqual([404, 'NOT_FOUND']);
      expect((await other.delete(`/internal/v1/users/${user.user_id}/mfa`)).status).toBe(404);
      expect(await storedPasskeys(t.ctx, user.user_id)).toHaveLength(2);

      const removed = await admin.delete(`/auth/mfa/passkeys/${spare}`);
      expect([removed.status, removed.body.name]).toEqual([200, 'Spare']);
      const last = await admin.delete(`/auth/mfa/passkeys/${passkeyId}`);
      expect([last.status, last.body.error_code]).toEqual([409, 'CONFLICT']);
      expect(last.body.message).toContain('your last second factor');
      expect(await storedPasskeys(t.ctx, user.user_id)).toHaveLength(1);

      // Without the requirement, the last one goes, and the recovery codes with it: nothing of two-step sign-in is left.
      expect((await admin.put('/internal/v1/account/user-settings', { mfa_required: false })).status).toBe(200);
      expect((await admin.delete(`/auth/mfa/passkeys/${passkeyId}`)).status).toBe(200);
      expect((await admin.get('/auth/mfa')).body).toEqual({
        totp_enrolled: false,
        passkeys: 0,
        recovery_codes_left: 0,
        required_by_account: false,
      });
      expect((await Browser.signIn(t.ctx.app, user)).step).toBe('SIGNED_IN');
      const audited = await auditOf(admin, 'user.passkey_removed');
      expect(audited.map((e: any) => e.details)).toEqual([
        { passkey_id: passkeyId, name: 'Security key' },
        { passkey_id: spare, name: 'Spare' },
      ]);
    });

    it('sets up two-step sign-in with a passkey where the account requires it; an admin reset removes the passkeys', async () => {
      const admin = await newUser(t.ctx.db, 'ACCOUNT_ADMIN');
      const adminBrowser = await Browser.signIn(t.ctx.app, admin);
      await enrolTotp(adminBrowser);
      const keeps = await withPasskey(t.ctx, 'BOOKKEEPER', admin.account_id);
      const keepsSession = await Browser.signIn(t.ctx.app, keeps.user);
      expect((await verifyWithPasskey(keepsSession, keeps.key)).status).toBe(200);
      const bookkeeper = await newUser(t.ctx.db, 'BOOKKEEPER', admin.account_id);
      expect((await adminBrowser.put('/internal/v1/account/user-settings', { mfa_required: true })).status).toBe(200);
      // Requiring it ends the sessions of those without a second factor only: a passkey is one.
      expect((await keepsSession.get(SEARCH)).status).toBe(200);

      const enrolling = await Browser.signIn(t.ctx.app, bookkeeper);
      expect(enrolling.step).toBe('MFA_ENROLMENT');
      const cookie = enrolling.cookie;
      const key = new SoftAuthenticator(PASSKEY_ORIGIN);
      const added = await addPasskey(enrolling, key, 'Phone');
      expect(added.session).toMatchObject({ step: 'SIGNED_IN', user: { mfa_enrolled: true } });
      expect(added.recovery_codes).toHaveLength(10);
      expect(enrolling.cookie).not.toBe(cookie);
      expect((await enrolling.get(SEARCH)).status).toBe(200);

      // Lost: the admin resets it; the passkey, the recovery codes and the sessions are gone.
      const reset = await adminBrowser.delete(`/internal/v1/users/${bookkeeper.user_id}/mfa`);
      expect([reset.status, reset.body.mfa_enrolled]).toEqual([200, false]);
      expect(await storedPasskeys(t.ctx, bookkeeper.user_id)).toEqual([]);
      expect((await enrolling.get(SEARCH)).status).toBe(401);
      expect((await Browser.signIn(t.ctx.app, bookkeeper)).step).toBe('MFA_ENROLMENT');
    });
  },
  { PUBLIC_URL: PASSKEY_ORIGIN },
);
