import { auditService, operatorSource, type AuditSource } from '../audit/audit.service.js';
import { Secret, TOTP } from 'otpauth';
import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { hashSecret } from '../auth/auth.service.js';
import { mfaRepository } from './mfa.repository.js';
import { passkeysRepository } from './passkeys.repository.js';
import { signInThrottle, throttleKeys } from './sign-in-throttle.js';
import { usersRepository, type UserRow } from './users.repository.js';
import { userRowToUser, type UserDto } from './users.service.js';

/**
 * Two-step sign-in for console users (docs/console.md, "Two-step sign-in"): a TOTP authenticator (RFC 6238: SHA-1,
 * 6 digits, 30-second steps; the step before and after the current one are accepted, for clocks a little apart),
 * passkeys (passkeys.service.ts) and RECOVERY_CODES single-use recovery codes. A code is accepted once: its time
 * step must come after the last one used. Wrong codes are throttled as passwords are (sign-in-throttle.ts), per user
 * and per address.
 */
const ISSUER = 'svc';
const PERIOD = 30;
const DIGITS = 6;
const WINDOW = 1;
export const RECOVERY_CODES = 10;

/** Where a sign-in stands: SIGNED_IN may call the API; the others are halfway and may call only their next step. */
export type SignInStep = 'SIGNED_IN' | 'MFA_CODE' | 'MFA_ENROLMENT';

/** What may answer a sign-in's second step. */
export type MfaFactor = 'TOTP' | 'PASSKEY' | 'RECOVERY_CODE';

export interface MfaStatus {
  totp_enrolled: boolean;
  /** how many passkeys the user has registered */
  passkeys: number;
  recovery_codes_left: number;
  /** the account requires two-step sign-in of every user */
  required_by_account: boolean;
}

export interface TotpEnrolment {
  /** base32, for typing into an app that cannot scan */
  secret: string;
  /** otpauth://totp/… (Key URI Format), to show as a QR code */
  otpauth_uri: string;
}

export interface AccountUserSettings {
  mfa_required: boolean;
  updated_at: string | null;
}

type UserKey = { account_id: string; user_id: string };
type Person = UserKey & { email: string };

const totpOf = (secret: string, label = 'svc') =>
  new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });

/** The time step a code stands for, if it is one of the accepted steps around now; else null. */
function stepOf(secret: string, code: string, now: number): number | null {
  const timestamp = Math.floor(now / 1000);
  const delta = totpOf(secret).validate({ token: code, timestamp, window: WINDOW });
  return delta === null ? null : TOTP.counter({ period: PERIOD, timestamp }) + delta;
}

/** A code as typed, compared: no spaces or hyphens, lower case. */
const normalCode = (code: string) => code.replace(/[\s-]+/g, '').toLowerCase();
const TOTP_CODE = new RegExp(`^\\d{${DIGITS}}$`);

/** RECOVERY_CODES codes of 80 random bits each, as base32 in groups of four: "k3vq-7mzp-…". */
function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () =>
    new Secret({ size: 10 }).base32.toLowerCase().match(/.{4}/g)!.join('-'),
  );
}

/**
 * Counts the attempt under the user's second-step keys, or refuses it while they are throttled; answers what ends
 * the attempt: `refused()` (the error to throw for a wrong answer, `refusal`'s, counted as a failure) and
 * `succeeded()`. A wrong code and a wrong passkey count alike.
 */
export async function secondStepAttempt(db: Db, userId: string, ip: string, refusal = errors.invalidMfaCode) {
  const keys = throttleKeys.secondStep(userId, ip);
  const throttled = await signInThrottle.attempt(db, keys);
  if (throttled) throw errors.signInLocked(throttled.retryAfterSeconds);
  return {
    async refused() {
      await signInThrottle.failed(db, keys);
      return refusal();
    },
    succeeded: () => signInThrottle.succeeded(db, keys),
  };
}

/** New recovery codes in place of the user's others, stored (hashed) in the caller's transaction; answers them. */
export async function replaceRecoveryCodes(ex: Executor, user: UserKey, now: number): Promise<string[]> {
  const codes = newRecoveryCodes();
  await mfaRepository.replaceRecoveryCodes(
    ex,
    user,
    codes.map((c) => hashSecret(normalCode(c))),
    now,
  );
  return codes;
}

/** New recovery codes in place of the user's others, in one transaction with `first` (unless it answers false). */
async function storeNewRecoveryCodes(
  db: Db,
  user: UserKey,
  now: number,
  first: (ex: Executor) => Promise<boolean>,
): Promise<string[] | null> {
  return db.write(async (ex) => ((await first(ex)) ? replaceRecoveryCodes(ex, user, now) : null));
}

export const mfaService = {
  /** Where a sign-in goes once the password is right. */
  async stepAfterPassword(db: Db, user: UserRow): Promise<SignInStep> {
    if (user.mfa_enrolled) return 'MFA_CODE';
    return (await this.settings(db, user.account_id)).mfa_required ? 'MFA_ENROLMENT' : 'SIGNED_IN';
  },

  async status(db: Db, user: UserKey): Promise<MfaStatus> {
    const totp = await mfaRepository.findTotp(db.direct, user);
    return {
      totp_enrolled: Boolean(totp?.confirmed_at),
      passkeys: await passkeysRepository.count(db.direct, user),
      recovery_codes_left: await mfaRepository.recoveryCodesLeft(db.direct, user),
      required_by_account: (await this.settings(db, user.account_id)).mfa_required,
    };
  },

  /** What may answer the user's second step now: told to a sign-in halfway (MFA_CODE), which offers them. */
  async factors(db: Db, user: UserKey): Promise<MfaFactor[]> {
    const status = await this.status(db, user);
    const factors: MfaFactor[] = [];
    if (status.totp_enrolled) factors.push('TOTP');
    if (status.passkeys > 0) factors.push('PASSKEY');
    if (status.recovery_codes_left > 0) factors.push('RECOVERY_CODE');
    return factors;
  },

  /** A new TOTP secret for the user to add to their app; it counts once a code of it is confirmed. */
  async startTotp(db: Db, user: Person): Promise<TotpEnrolment> {
    const secret = new Secret({ size: 20 }).base32;
    await db.write(async (ex) => {
      if ((await mfaRepository.findTotp(ex, user))?.confirmed_at) {
        throw errors.conflict('Two-step sign-in is set up already. An account admin can reset it (for a lost phone).', {
          user_id: user.user_id,
        });
      }
      await mfaRepository.replaceUnconfirmedTotp(ex, {
        account_id: user.account_id,
        user_id: user.user_id,
        secret,
        confirmed_at: null,
        last_used_step: null,
        created_at: nowMicros(),
      });
    });
    return { secret, otpauth_uri: totpOf(secret, user.email).toString() };
  },

  /** Confirms the secret being set up with a code of it; answers the new recovery codes (shown once). */
  async confirmTotp(db: Db, user: UserKey, code: string, ip: string): Promise<{ recovery_codes: string[] }> {
    const tried = await secondStepAttempt(db, user.user_id, ip);
    const totp = await mfaRepository.findTotp(db.direct, user);
    if (!totp || totp.confirmed_at !== null) {
      throw errors.conflict('No set-up of two-step sign-in is waiting for a code: start it again.', {
        user_id: user.user_id,
      });
    }
    const now = nowMicros();
    const step = stepOf(totp.secret, normalCode(code), now);
    if (step === null) throw await tried.refused();
    const codes = await storeNewRecoveryCodes(db, user, now, (ex) =>
      mfaRepository.confirmTotp(ex, user, totp.secret, step, now),
    );
    if (!codes) throw errors.conflict('The set-up changed meanwhile: start it again.', { user_id: user.user_id });
    await tried.succeeded();
    return { recovery_codes: codes };
  },

  /**
   * The second step of a sign-in: a TOTP code (6 digits) of a step after the last one used, or an unused recovery
   * code (used up now). Wrong, replayed and used codes are one answer, INVALID_MFA_CODE, and count as failures.
   */
  async verify(
    db: Db,
    user: UserKey,
    code: string,
    ip: string,
  ): Promise<{ used: 'TOTP' | 'RECOVERY_CODE'; recovery_codes_left: number }> {
    const tried = await secondStepAttempt(db, user.user_id, ip);
    const normal = normalCode(code);
    let used: 'TOTP' | 'RECOVERY_CODE';
    if (TOTP_CODE.test(normal)) {
      const totp = await mfaRepository.findTotp(db.direct, user);
      const step = totp?.confirmed_at ? stepOf(totp.secret, normal, nowMicros()) : null;
      if (step === null || !(await mfaRepository.useStep(db.direct, user, step))) throw await tried.refused();
      used = 'TOTP';
    } else {
      if (!(await mfaRepository.useRecoveryCode(db.direct, user, hashSecret(normal), nowMicros())))
        throw await tried.refused();
      used = 'RECOVERY_CODE';
    }
    await tried.succeeded();
    return { used, recovery_codes_left: await mfaRepository.recoveryCodesLeft(db.direct, user) };
  },

  /** New recovery codes in place of the old ones, for a current TOTP code (a stolen session alone cannot). */
  async renewRecoveryCodes(db: Db, user: UserKey, code: string, ip: string): Promise<{ recovery_codes: string[] }> {
    const tried = await secondStepAttempt(db, user.user_id, ip);
    const totp = await mfaRepository.findTotp(db.direct, user);
    if (!totp?.confirmed_at) throw errors.conflict('Two-step sign-in is not set up.', { user_id: user.user_id });
    const normal = normalCode(code);
    const step = TOTP_CODE.test(normal) ? stepOf(totp.secret, normal, nowMicros()) : null;
    if (step === null) throw await tried.refused();
    const codes = await storeNewRecoveryCodes(db, user, nowMicros(), (ex) => mfaRepository.useStep(ex, user, step));
    if (!codes) throw await tried.refused();
    await tried.succeeded();
    return { recovery_codes: codes };
  },

  /**
   * Removes the user's authenticator, passkeys and recovery codes and ends their sessions: their next sign-in is
   * with the password alone (or sets up a second factor first, where the account requires it). `accountId` null: any
   * account (`svc users reset-mfa`); otherwise another account's user is 404.
   */
  async reset(db: Db, source: AuditSource | null, userId: string): Promise<UserDto> {
    const user =
      source === null
        ? await usersRepository.findById(db.direct, userId)
        : await usersRepository.find(db.direct, source.accountId, userId);
    if (!user) throw errors.notFound(`User ${userId}`, { user_id: userId });
    await db.write(async (ex) => {
      await mfaRepository.deleteMfaOf(ex, user);
      await usersRepository.deleteSessionsOf(ex, user.account_id, user.user_id);
      const by = source ?? operatorSource(user.account_id);
      await auditService.record(ex, by, 'user.mfa_reset', { type: 'user', id: user.user_id }, { email: user.email });
    });
    return userRowToUser({ ...user, mfa_enrolled: false });
  },

  async settings(db: Db, accountId: string): Promise<AccountUserSettings> {
    const row = await mfaRepository.settings(db.direct, accountId);
    return { mfa_required: row?.mfa_required === 1, updated_at: row ? microsToIso(Number(row.updated_at)) : null };
  },

  /**
   * An admin's change of the account's settings. Requiring two-step sign-in ends at once the sessions of the users
   * who have not set it up (their next sign-in sets it up before anything else); the admin must have set it up.
   */
  async updateSettings(db: Db, source: AuditSource, change: { mfa_required: boolean }): Promise<AccountUserSettings> {
    const admin = { accountId: source.accountId, userId: source.actor.id };
    const now = nowMicros();
    await db.write(async (ex) => {
      const before = (await mfaRepository.settings(ex, admin.accountId))?.mfa_required === 1;
      if (change.mfa_required) {
        const self = await usersRepository.find(ex, admin.accountId, admin.userId);
        if (!self?.mfa_enrolled) {
          throw errors.conflict(
            'Set up two-step sign-in for yourself first: requiring it ends the sessions of everyone who has not.',
            { user_id: admin.userId },
          );
        }
      }
      await mfaRepository.upsertSettings(ex, {
        account_id: admin.accountId,
        mfa_required: change.mfa_required ? 1 : 0,
        updated_at: now,
        updated_by: admin.userId,
      });
      if (change.mfa_required) await mfaRepository.deleteSessionsWithoutMfa(ex, admin.accountId);
      await auditService.record(
        ex,
        source,
        'account.settings_changed',
        { type: 'account', id: admin.accountId },
        {
          mfa_required_before: before,
          mfa_required: change.mfa_required,
        },
      );
    });
    return { mfa_required: change.mfa_required, updated_at: microsToIso(now) };
  },
};
