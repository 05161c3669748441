import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { advanceClock, nowMicros } from '../../src/lib/clock.js';
import type { Role } from '../../src/modules/users/roles.js';
import { Browser, newUser } from './console.js';
import type { TestContext } from './context.js';
import { errorBody } from './expect.js';
import { SoftAuthenticator, type Answer } from './webauthn.js';

/** The code an authenticator app shows for `secret` at `micros` (the service's clock, which tests move). */
export function totpCode(secret: string, micros = nowMicros()): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Math.floor(micros / 1000) });
}

/** Moves the service's clock to the next 30-second TOTP step (a code of the step before is then a replay). */
export function nextTotpStep(): void {
  const step = 30_000_000;
  advanceClock(step - (nowMicros() % step));
}

/** Seconds, in the service's clock's microseconds. */
export const seconds = (n: number) => n * 1_000_000;

/** Sets up an authenticator for the browser's user through the API: its secret and recovery codes. */
export async function enrolTotp(browser: Browser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await browser.post('/auth/mfa/totp', {});
  expect(started.status, started.text).toBe(200);
  const secret: string = started.body.secret;
  const confirmed = await browser.post('/auth/mfa/totp/confirm', { code: totpCode(secret) });
  expect(confirmed.status, confirmed.text).toBe(200);
  return { secret, recoveryCodes: confirmed.body.recovery_codes };
}

/** The origin of PUBLIC_URL in the passkey tests: its host is the relying party's id (a domain, as browsers want). */
export const PASSKEY_ORIGIN = 'http://localhost:8080';

/** Adds the authenticator's credential as a passkey of the browser's user through the API: the answer. */
export async function addPasskey(browser: Browser, authenticator: SoftAuthenticator, name = 'Security key') {
  const options = await browser.post('/auth/mfa/passkeys/registration-options', {});
  expect(options.status, options.text).toBe(200);
  const added = await browser.post('/auth/mfa/passkeys', { name, credential: authenticator.register(options.body) });
  expect(added.status, added.text).toBe(200);
  return added.body;
}

/** The second step of a sign-in halfway, answered by the authenticator (`answer` may spoil it): the answer. */
export async function verifyWithPasskey(browser: Browser, authenticator: SoftAuthenticator, answer: Answer = {}) {
  const options = await browser.post('/auth/mfa/passkeys/authentication-options', {});
  expect(options.status, options.text).toBe(200);
  return browser.post('/auth/mfa/passkeys/verify', { credential: authenticator.assert(options.body, answer) });
}

/** The answer to a passkey's assertion or credential that does not verify, whatever the reason. */
export const INVALID_PASSKEY = errorBody('INVALID_PASSKEY', {
  message:
    'The passkey could not be verified: it is not one of yours, or the request for it expired or was answered already. Try again.',
  details: { errors: [{ path: '/credential', message: 'is not a valid answer of a passkey' }] },
});

/** A user with a passkey (their only second factor), signed out again: the authenticator and recovery codes. */
export async function withPasskey(ctx: TestContext, role: Role = 'BOOKKEEPER', accountId?: string) {
  const user = await newUser(ctx.db, role, accountId);
  const browser = await Browser.signIn(ctx.app, user);
  const key = new SoftAuthenticator(PASSKEY_ORIGIN);
  const added = await addPasskey(browser, key);
  expect((await browser.delete('/auth/session')).status).toBe(200);
  return { user, key, passkeyId: added.passkey.passkey_id as string, recoveryCodes: added.recovery_codes as string[] };
}

export const storedPasskeys = (ctx: TestContext, userId: string) =>
  ctx.db.direct.selectFrom('user_passkeys').selectAll().where('user_id', '=', userId).execute();
