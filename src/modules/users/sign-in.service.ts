import argon2 from 'argon2';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { nowMicros } from '../../lib/clock.js';
import { mfaService, type SignInStep } from './mfa.service.js';
import { decoy, hashNeedsUpdate, hashPassword, normalPassword } from './passwords.js';
import { signInThrottle, throttleKeys } from './sign-in-throttle.js';
import { usersRepository } from './users.repository.js';
import type { UsersTable } from './users.tables.js';
import { foldEmail, userRowToUser, type UserDto } from './users.service.js';

/**
 * Which form of the password the hash holds: NFKC (every password set since the policy normalises), or as typed
 * (one set before, whose characters NFKC changes); null when neither is right. Both are tried only when they
 * differ, for a known email and the decoy alike.
 */
async function verifyPassword(hash: string, password: string): Promise<'normal' | 'typed' | null> {
  const normal = normalPassword(password);
  if (await argon2.verify(hash, normal).catch(() => false)) return 'normal';
  if (normal !== password && (await argon2.verify(hash, password).catch(() => false))) return 'typed';
  return null;
}

export const signInService = {
  /**
   * The first step of a sign-in: the user an email and password sign in, and the step it leads to (SIGNED_IN, or
   * a second step: MFA_CODE, MFA_ENROLMENT). The attempt is counted first under (email, address) and address,
   * known email or not (sign-in-throttle.ts): a throttled one is refused with SIGN_IN_LOCKED before any lookup;
   * otherwise an unknown email, a wrong password, a disabled user and a user without a password all get
   * INVALID_CREDENTIALS after one argon2 verification (against a decoy hash for the unknown), so that neither the
   * answers nor their times tell whether the email exists. A success clears the (email, address) counter.
   */
  async password(
    db: Db,
    emailInput: string,
    password: string,
    ip: string,
  ): Promise<{ user: UserDto; step: SignInStep }> {
    // Folded as at creation, but not checked: a malformed email is answered like any unknown one.
    const email = foldEmail(emailInput);
    const keys = throttleKeys.password(email, ip);
    const throttled = await signInThrottle.attempt(db, keys);
    if (throttled) throw errors.signInLocked(throttled.retryAfterSeconds);
    const refuse = async () => {
      await signInThrottle.failed(db, keys);
      return errors.invalidCredentials();
    };
    const user = await usersRepository.findByEmail(db.direct, email);
    if (!user || user.disabled_at !== null || user.password_hash === null) {
      await verifyPassword(await decoy(), password);
      throw await refuse();
    }
    const form = await verifyPassword(user.password_hash, password);
    if (!form) throw await refuse();
    const changes: Partial<UsersTable> = { updated_at: nowMicros() };
    if (form === 'typed' || hashNeedsUpdate(user.password_hash)) {
      changes.password_hash = await hashPassword(normalPassword(password));
    }
    // Only if the password is still the one just verified: a reset or a new password set meanwhile wins, and this
    // sign-in fails rather than bring the old password back or outlive the reset.
    const kept = await usersRepository.updateIfPassword(db.direct, user, user.password_hash, changes);
    if (!kept) throw errors.invalidCredentials();
    await signInThrottle.succeeded(db, keys);
    return { user: userRowToUser(user), step: await mfaService.stepAfterPassword(db, user) };
  },
};
