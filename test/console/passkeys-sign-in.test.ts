import { expect, it } from 'vitest';
import { advanceClock, freezeClock } from '../../src/lib/clock.js';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';
import {
  enrolTotp,
  INVALID_PASSKEY,
  PASSKEY_ORIGIN,
  seconds,
  storedPasskeys,
  verifyWithPasskey,
  withPasskey,
} from '../support/mfa.js';
import { SoftAuthenticator } from '../support/webauthn.js';

// The challenge's expiry and the throttle's delays are measured on the service's clock, which only tests move.
freezeClock();

const SEARCH = '/internal/v1/accounting/records';

describeEachDialect(
  'console: passkeys as a second factor (WebAuthn): signing in with them',
  (t) => {
    it('signs in with a passkey: the halfway session says which factors; the assertion signs it in under a new id', async () => {
      const { user, key, passkeyId, recoveryCodes } = await withPasskey(t.ctx);
      const halfway = await Browser.signIn(t.ctx.app, user);
      expect(halfway.step).toBe('MFA_CODE');
      const session = await halfway.get('/auth/session');
      expect(session.body).toMatchObject({ step: 'MFA_CODE', mfa_factors: ['PASSKEY', 'RECOVERY_CODE'] });
      // Halfway, the passkeys are not the session's to list or add.
      expect((await halfway.get('/auth/mfa/passkeys')).status).toBe(401);
      expect((await halfway.post('/auth/mfa/passkeys/registration-options', {})).status).toBe(401);

      halfway.csrf = false;
      for (const url of ['/auth/mfa/passkeys/authentication-options', '/auth/mfa/passkeys/verify']) {
        const res = await halfway.post(url, {});
        expect([url, res.status, res.body.error_code]).toEqual([url, 403, 'CSRF_TOKEN_INVALID']);
      }
      halfway.csrf = true;

      const options = await halfway.post('/auth/mfa/passkeys/authentication-options', {});
      expect(options.status, options.text).toBe(200);
      expect(options.body).toEqual({
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        rpId: 'localhost',
        allowCredentials: [{ id: key.id, type: 'public-key', transports: ['usb'] }],
        timeout: 300_000,
        userVerification: 'preferred',
      });
      const pendingCookie = halfway.cookie;
      const verified = await halfway.post('/auth/mfa/passkeys/verify', { credential: key.assert(options.body) });
      expect(verified.status, verified.text).toBe(200);
      expect(verified.body).toEqual({
        used: 'PASSKEY',
        recovery_codes_left: 10,
        session: expect.objectContaining({
          step: 'SIGNED_IN',
          user: expect.objectContaining({ user_id: user.user_id }),
        }),
      });
      expect(verified.body.session.mfa_factors).toBeUndefined();
      expect(halfway.cookie).not.toBe(pendingCookie);
      expect((await halfway.get(SEARCH)).status).toBe(200);
      const old = await t.ctx.app.inject({ method: 'GET', url: SEARCH, headers: { cookie: pendingCookie! } });
      expect(old.statusCode).toBe(401);
      const [stored] = await storedPasskeys(t.ctx, user.user_id);
      expect(Number(stored!.counter)).toBe(1);
      expect(stored!.last_used_at).not.toBeNull();
      expect((await halfway.get('/auth/mfa/passkeys')).body.items).toEqual([
        expect.objectContaining({ passkey_id: passkeyId, last_used_at: expect.stringMatching(ISO_MICROS) }),
      ]);

      // A recovery code still answers the second step.
      const lost = await Browser.signIn(t.ctx.app, user);
      const recovered = await lost.post('/auth/mfa/verify', { code: recoveryCodes[0]! });
      expect([recovered.status, recovered.body.used, recovered.body.recovery_codes_left]).toEqual([
        200,
        'RECOVERY_CODE',
        9,
      ]);
      // A user with TOTP and a passkey is offered both.
      await enrolTotp(lost);
      expect((await Browser.signIn(t.ctx.app, user)).step).toBe('MFA_CODE');
      expect((await (await Browser.signIn(t.ctx.app, user)).get('/auth/session')).body.mfa_factors).toEqual([
        'TOTP',
        'PASSKEY',
        'RECOVERY_CODE',
      ]);
    });

    it('uses a challenge once, right or wrong, and only for 5 minutes: a replayed assertion is refused', async () => {
      const { user, key } = await withPasskey(t.ctx);
      const first = await Browser.signIn(t.ctx.app, user);
      const options = await first.post('/auth/mfa/passkeys/authentication-options', {});
      const assertion = key.assert(options.body);
      expect((await first.post('/auth/mfa/passkeys/verify', { credential: assertion })).status).toBe(200);

      // Replayed in another sign-in: before it asks for a challenge, and after (the challenge is not the same).
      const second = await Browser.signIn(t.ctx.app, user);
      const early = await second.post('/auth/mfa/passkeys/verify', { credential: assertion });
      expect([early.status, early.body]).toEqual([400, INVALID_PASSKEY]);
      const asked = await second.post('/auth/mfa/passkeys/authentication-options', {});
      const replayed = await second.post('/auth/mfa/passkeys/verify', { credential: assertion });
      expect([replayed.status, replayed.body]).toEqual([400, INVALID_PASSKEY]);
      // That wrong answer used the challenge up: the right answer to it comes too late.
      const late = await second.post('/auth/mfa/passkeys/verify', { credential: key.assert(asked.body) });
      expect([late.status, late.body]).toEqual([400, INVALID_PASSKEY]);
      expect((await second.get(SEARCH)).status).toBe(401);

      // A challenge unanswered for 5 minutes has expired (the halfway session itself lasts 15).
      const slow = await second.post('/auth/mfa/passkeys/authentication-options', {});
      advanceClock(seconds(5 * 60));
      expect((await second.post('/auth/mfa/passkeys/verify', { credential: key.assert(slow.body) })).status).toBe(400);
      expect((await verifyWithPasskey(second, key)).status).toBe(200);
      expect((await second.get(SEARCH)).status).toBe(200);
    });

    it('signs in once when two answers race for one challenge, even from an authenticator that keeps no counter', async () => {
      const { user, key } = await withPasskey(t.ctx);
      const halfway = await Browser.signIn(t.ctx.app, user);
      const options = await halfway.post('/auth/mfa/passkeys/authentication-options', {});
      // Counter 0, as the stored one: only the challenge, taken once, tells the second answer from the first.
      const credential = key.assert(options.body, { counter: 0 });
      const raced = await Promise.all([1, 2].map(() => halfway.post('/auth/mfa/passkeys/verify', { credential })));
      expect(raced.filter((r) => r.status === 200)).toHaveLength(1);
      expect(raced.map((r) => r.status)).not.toContain(500);
    });

    it("refuses another user's credential, another origin, another relying party and a counter gone back", async () => {
      const ann = await withPasskey(t.ctx);
      const bob = await withPasskey(t.ctx, 'BOOKKEEPER', ann.user.account_id);
      const halfway = await Browser.signIn(t.ctx.app, bob.user);
      const options = await halfway.post('/auth/mfa/passkeys/authentication-options', {});
      expect(options.body.allowCredentials).toEqual([expect.objectContaining({ id: bob.key.id })]);
      // Ann's passkey, answering Bob's challenge: a valid signature, but not Bob's credential.
      const stolen = await halfway.post('/auth/mfa/passkeys/verify', { credential: ann.key.assert(options.body) });
      expect([stolen.status, stolen.body]).toEqual([400, INVALID_PASSKEY]);

      const phished = await verifyWithPasskey(halfway, bob.key, { origin: 'https://svc.example.evil' });
      expect([phished.status, phished.body]).toEqual([400, INVALID_PASSKEY]);
      const otherRp = await verifyWithPasskey(halfway, bob.key, { rpId: 'example.evil' });
      expect([otherRp.status, otherRp.body]).toEqual([400, INVALID_PASSKEY]);
      expect((await halfway.get(SEARCH)).status).toBe(401);
      expect((await verifyWithPasskey(halfway, bob.key)).status).toBe(200);
      // A counter that does not move on (a cloned key, the copy behind the original) is refused by the library.
      const counted = Number((await storedPasskeys(t.ctx, bob.user.user_id))[0]!.counter);
      expect(counted).toBe(bob.key.counter);
      const clone = await Browser.signIn(t.ctx.app, bob.user);
      const cloned = await verifyWithPasskey(clone, bob.key, { counter: counted });
      expect([cloned.status, cloned.body]).toEqual([400, INVALID_PASSKEY]);

      // Registration too: a credential made on another origin is not added.
      const browser = await Browser.signIn(t.ctx.app, await newUser(t.ctx.db, 'BOOKKEEPER'));
      const create = await browser.post('/auth/mfa/passkeys/registration-options', {});
      const elsewhere = new SoftAuthenticator('https://svc.example.evil');
      const refused = await browser.post('/auth/mfa/passkeys', {
        name: 'Key',
        credential: elsewhere.register(create.body),
      });
      expect([refused.status, refused.body]).toEqual([400, INVALID_PASSKEY]);
      expect((await browser.get('/auth/mfa')).body.passkeys).toBe(0);
    });

    it('counts failed assertions as wrong codes: after 5, refused with growing delays, even the right one', async () => {
      const { user, key } = await withPasskey(t.ctx);
      // An address of its own: the other tests' failures from 127.0.0.1 stay out of this count.
      const browser = await Browser.signIn(t.ctx.app, user, '198.51.100.5');
      const wrong = () => verifyWithPasskey(browser, key, { origin: 'https://svc.example.evil' });
      for (let i = 0; i < 5; i++) expect((await wrong()).status).toBe(400);
      const refused = await verifyWithPasskey(browser, key);
      expect(refused.body).toEqual(errorBody('SIGN_IN_LOCKED', { details: { retry_after_seconds: 1 } }));
      expect([refused.status, refused.headers['retry-after']]).toEqual([429, '1']);
      advanceClock(seconds(1));
      expect((await verifyWithPasskey(browser, key)).status).toBe(200);
    });
  },
  { PUBLIC_URL: PASSKEY_ORIGIN },
);
