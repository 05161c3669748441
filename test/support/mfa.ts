import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { advanceClock, nowMicros } from '../../src/lib/clock.js';
import type { Browser } from './console.js';

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
