import argon2 from 'argon2';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { isOneOf } from '../../lib/guards.js';
import { newId, randomToken } from '../../lib/ids.js';
import { authService, hashSecret } from '../auth/auth.service.js';
import { ROLES, type Role } from './roles.js';
import { usersRepository } from './users.repository.js';
import type { UsersTable } from './users.tables.js';

/** A user as listed and answered: never the password hash. */
export interface UserDto {
  user_id: string;
  account_id: string;
  email: string;
  role: Role;
  status: 'ACTIVE' | 'DISABLED' | 'INVITED';
  created_at: string;
}

export interface PasswordLink {
  user: UserDto;
  /** The one-time token; the console's /console/set-password?token=… page takes it. Stored only as a hash. */
  token: string;
  expires_at: string;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
const MINUTE = 60_000_000;
/** A password link works once, for this long. */
const LINK_TTL = 72 * 60 * MINUTE;
/** Failed sign-ins in a row before a user is locked out, and for how long. */
const MAX_FAILED_SIGN_INS = 5;
const LOCKOUT = 15 * MINUTE;
const PASSWORD_MIN = 12;
const PASSWORD_MAX = 256;

// OWASP's argon2id floor is 19 MiB, 2 passes; these are the library's defaults, above it.
const HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 65_536, timeCost: 3, parallelism: 4 } as const;
/** Verified against when the email is unknown, so that an unknown email takes as long as a wrong password. */
let decoyHash: Promise<string> | null = null;
const decoy = () => (decoyHash ??= argon2.hash(randomToken(16), HASH_OPTIONS));

export function userRowToUser(row: UsersTable): UserDto {
  return {
    user_id: row.user_id,
    account_id: row.account_id,
    email: row.email,
    role: isOneOf(ROLES, row.role) ? row.role : 'READ_ONLY',
    status: row.disabled_at !== null ? 'DISABLED' : row.password_hash === null ? 'INVITED' : 'ACTIVE',
    created_at: microsToIso(row.created_at),
  };
}

const foldEmail = (email: string) => email.trim().toLowerCase();

function normalEmail(email: string): string {
  const value = foldEmail(email);
  if (!EMAIL.test(value)) throw errors.invalidField('/email', 'must be an email address');
  return value;
}

function checkPassword(password: string, email: string): void {
  if (password.length < PASSWORD_MIN)
    throw errors.invalidField('/password', `must be at least ${PASSWORD_MIN} characters`);
  if (password.length > PASSWORD_MAX)
    throw errors.invalidField('/password', `must be at most ${PASSWORD_MAX} characters`);
  if (password.trim().toLowerCase() === email) throw errors.invalidField('/password', 'must not be the email');
}

async function newLink(db: Db, user: UsersTable, now: number): Promise<PasswordLink> {
  const token = `svc_pl_${randomToken(32)}`;
  await db.write(async (ex) => {
    await usersRepository.deletePasswordLinksOf(ex, user.account_id, user.user_id);
    await usersRepository.insertPasswordLink(ex, {
      link_hash: hashSecret(token),
      account_id: user.account_id,
      user_id: user.user_id,
      created_at: now,
      expires_at: now + LINK_TTL,
    });
  });
  return { user: userRowToUser(user), token, expires_at: microsToIso(now + LINK_TTL) };
}

async function userById(db: Db, userId: string): Promise<UsersTable> {
  const user = await usersRepository.findById(db.direct, userId);
  if (!user) throw errors.notFound(`User ${userId}`, { user_id: userId });
  return user;
}

export const usersService = {
  /** The key that signs session cookies: made by the first process to start, shared by all through the database. */
  async cookieSecret(db: Db): Promise<string> {
    return usersRepository.secret(db.direct, 'session_cookie', randomToken(48), nowMicros());
  },

  /** Deletes sessions past their idle or absolute expiry and password links past theirs (maintenance). */
  async deleteEnded(db: Db, now: number, idleMicros: number): Promise<{ sessions: number; links: number }> {
    return {
      sessions: await usersRepository.deleteEndedSessions(db.direct, now, now - idleMicros),
      links: await usersRepository.deleteExpiredPasswordLinks(db.direct, now),
    };
  },

  /** A new user without a password, and the one-time link that sets it. Creates the account if it is new. */
  async create(db: Db, input: { accountId: string; email: string; role: string }): Promise<PasswordLink> {
    const email = normalEmail(input.email);
    if (!isOneOf(ROLES, input.role)) throw errors.invalidField('/role', `must be one of ${ROLES.join(', ')}`);
    const now = nowMicros();
    const user: UsersTable = {
      account_id: input.accountId,
      user_id: newId('usr'),
      email,
      role: input.role,
      password_hash: null,
      failed_sign_ins: 0,
      locked_until: null,
      created_at: now,
      updated_at: now,
      disabled_at: null,
    };
    await db.write(async (ex) => {
      if (await usersRepository.findByEmail(ex, email)) {
        throw errors.conflict(`A user with the email ${email} exists already.`, { email });
      }
      await authService.ensureAccount(ex, input.accountId, now);
      await usersRepository.insert(ex, user);
    });
    return newLink(db, user, now);
  },

  /** One user of the account (404 for another account's). */
  async get(db: Db, accountId: string, userId: string): Promise<UserDto> {
    const user = await usersRepository.find(db.direct, accountId, userId);
    if (!user) throw errors.notFound(`User ${userId}`, { user_id: userId });
    return userRowToUser(user);
  },

  async list(db: Db, accountId: string | null): Promise<UserDto[]> {
    return (await usersRepository.list(db.direct, accountId)).map(userRowToUser);
  },

  /** Disables the user: their sessions end at once, their links stop working, sign-in is refused. */
  async disable(db: Db, userId: string): Promise<UserDto> {
    const user = await userById(db, userId);
    const now = nowMicros();
    await db.write(async (ex) => {
      await usersRepository.update(ex, user.account_id, user.user_id, { disabled_at: now, updated_at: now });
      await usersRepository.deleteSessionsOf(ex, user.account_id, user.user_id);
      await usersRepository.deletePasswordLinksOf(ex, user.account_id, user.user_id);
    });
    return userRowToUser({ ...user, disabled_at: now, updated_at: now });
  },

  /**
   * A reset: the old password stops working and every session ends at once; a new one-time link sets the next
   * password. Also re-enables a disabled user (an admin deciding they may come back).
   */
  async resetPassword(db: Db, userId: string): Promise<PasswordLink> {
    const user = await userById(db, userId);
    const now = nowMicros();
    const reset = { password_hash: null, failed_sign_ins: 0, locked_until: null, disabled_at: null, updated_at: now };
    await db.write(async (ex) => {
      await usersRepository.update(ex, user.account_id, user.user_id, reset);
      await usersRepository.deleteSessionsOf(ex, user.account_id, user.user_id);
    });
    return newLink(db, { ...user, ...reset }, now);
  },

  /** Sets the password a one-time link stands for; the link is used up, other sessions of the user end. */
  async setPassword(db: Db, token: string, password: string): Promise<UserDto> {
    const linkHash = hashSecret(token);
    const link = await usersRepository.findPasswordLink(db.direct, linkHash);
    if (!link || link.expires_at <= nowMicros()) throw errors.invalidPasswordLink();
    const user = await usersRepository.find(db.direct, link.account_id, link.user_id);
    if (!user || user.disabled_at !== null) throw errors.invalidPasswordLink();
    // A refused password leaves the link as it was, for the next try.
    checkPassword(password, user.email);
    const passwordHash = await argon2.hash(password, HASH_OPTIONS);
    const changes = { password_hash: passwordHash, failed_sign_ins: 0, locked_until: null, updated_at: nowMicros() };
    await db.write(async (ex) => {
      // Taken inside the transaction: of two requests racing with one link, one sets the password.
      if (!(await usersRepository.takePasswordLink(ex, linkHash))) throw errors.invalidPasswordLink();
      await usersRepository.update(ex, user.account_id, user.user_id, changes);
      await usersRepository.deleteSessionsOf(ex, user.account_id, user.user_id);
    });
    return userRowToUser({ ...user, ...changes });
  },

  /**
   * The user an email and password sign in, or INVALID_CREDENTIALS (the same answer whatever was wrong).
   * Every attempt is counted before the password is checked, in one statement, so concurrent guesses share one
   * budget: after MAX_FAILED_SIGN_INS failures in a row sign-in is refused (SIGN_IN_LOCKED) for LOCKOUT, even
   * with the right password.
   */
  async signIn(db: Db, emailInput: string, password: string): Promise<UserDto> {
    // Folded as at creation, but not checked: a malformed email is answered like any unknown one.
    const email = foldEmail(emailInput);
    const user = await usersRepository.findByEmail(db.direct, email);
    if (!user || user.disabled_at !== null || user.password_hash === null) {
      await argon2.verify(await decoy(), password).catch(() => false);
      throw errors.invalidCredentials();
    }
    const now = nowMicros();
    if (user.locked_until !== null && user.locked_until > now) {
      throw errors.signInLocked(Math.ceil((user.locked_until - now) / 1_000_000));
    }
    const attempt = await usersRepository.countAttempt(db.direct, user.account_id, user.user_id, now);
    if (attempt === null) {
      const locked = await usersRepository.find(db.direct, user.account_id, user.user_id);
      throw errors.signInLocked(Math.max(1, Math.ceil(((locked?.locked_until ?? now) - now) / 1_000_000)));
    }
    const lockOut = async () => {
      await usersRepository.update(db.direct, user.account_id, user.user_id, {
        locked_until: nowMicros() + LOCKOUT,
        failed_sign_ins: 0,
      });
      return errors.signInLocked(LOCKOUT / 1_000_000);
    };
    // Concurrent guesses past the budget are refused unchecked; the one that spends it locks the user out.
    if (attempt > MAX_FAILED_SIGN_INS) throw await lockOut();
    const right = await argon2.verify(user.password_hash, password).catch(() => false);
    if (!right) throw attempt === MAX_FAILED_SIGN_INS ? await lockOut() : errors.invalidCredentials();
    const changes: Partial<UsersTable> = { failed_sign_ins: 0, locked_until: null, updated_at: nowMicros() };
    if (argon2.needsRehash(user.password_hash, HASH_OPTIONS)) {
      changes.password_hash = await argon2.hash(password, HASH_OPTIONS);
    }
    // Only if the password is still the one just verified: a reset or a new password set meanwhile wins, and this
    // sign-in fails rather than bring the old password back or outlive the reset.
    const kept = await usersRepository.updateIfPassword(db.direct, user, user.password_hash, changes);
    if (!kept) throw errors.invalidCredentials();
    return userRowToUser(user);
  },
};
