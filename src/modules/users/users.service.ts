import { auditService, operatorSource } from '../audit/audit.service.js';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { isOneOf } from '../../lib/guards.js';
import { newId, randomToken } from '../../lib/ids.js';
import { authService, hashSecret } from '../auth/auth.service.js';
import { ROLES, type Role } from './roles.js';
import { acceptablePassword, hashPassword } from './passwords.js';
import { signInThrottle } from './sign-in-throttle.js';
import { usersRepository, type UserRow } from './users.repository.js';
import type { UsersTable } from './users.tables.js';

/** A user as listed and answered: never the password hash. */
export interface UserDto {
  user_id: string;
  account_id: string;
  email: string;
  role: Role;
  status: 'ACTIVE' | 'DISABLED' | 'INVITED';
  /** a confirmed TOTP authenticator: sign-in asks for its code (or a recovery code) after the password */
  mfa_enrolled: boolean;
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

export function userRowToUser(row: UserRow): UserDto {
  return {
    user_id: row.user_id,
    account_id: row.account_id,
    email: row.email,
    role: isOneOf(ROLES, row.role) ? row.role : 'READ_ONLY',
    status: row.disabled_at !== null ? 'DISABLED' : row.password_hash === null ? 'INVITED' : 'ACTIVE',
    mfa_enrolled: Boolean(row.mfa_enrolled),
    created_at: microsToIso(row.created_at),
  };
}

/** An email as stored and compared: trimmed, lower case. */
export const foldEmail = (email: string): string => email.trim().toLowerCase();

function normalEmail(email: string): string {
  const value = foldEmail(email);
  if (!EMAIL.test(value)) throw errors.invalidField('/email', 'must be an email address');
  return value;
}

async function newLink(db: Db, user: UserRow, now: number): Promise<PasswordLink> {
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

async function userById(db: Db, userId: string): Promise<UserRow> {
  const user = await usersRepository.findById(db.direct, userId);
  if (!user) throw errors.notFound(`User ${userId}`, { user_id: userId });
  return user;
}

export const usersService = {
  /** The key that signs session cookies: made by the first process to start, shared by all through the database. */
  async cookieSecret(db: Db): Promise<string> {
    return usersRepository.secret(db.direct, 'session_cookie', randomToken(48), nowMicros());
  },

  /** The key that signs receipt download links when RECEIPT_LINK_SECRET is unset: made once, shared likewise. */
  async receiptLinkSecret(db: Db): Promise<string> {
    return usersRepository.secret(db.direct, 'receipt_links', randomToken(48), nowMicros());
  },

  /**
   * Deletes sessions past their idle or absolute expiry, password links past theirs and sign-in counters nobody
   * has touched for a day (maintenance).
   */
  async deleteEnded(
    db: Db,
    now: number,
    idleMicros: number,
  ): Promise<{ sessions: number; links: number; throttles: number }> {
    return {
      sessions: await usersRepository.deleteEndedSessions(db.direct, now, now - idleMicros),
      links: await usersRepository.deleteExpiredPasswordLinks(db.direct, now),
      throttles: await signInThrottle.deleteStale(db, now),
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
      await auditService.record(
        ex,
        operatorSource(user.account_id),
        'user.created',
        { type: 'user', id: user.user_id },
        {
          email,
          role: user.role,
        },
      );
    });
    return newLink(db, { ...user, mfa_enrolled: false }, now);
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
      await auditService.record(ex, operatorSource(user.account_id), 'user.disabled', {
        type: 'user',
        id: user.user_id,
      });
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
    const reset = { password_hash: null, disabled_at: null, updated_at: now };
    await db.write(async (ex) => {
      await usersRepository.update(ex, user.account_id, user.user_id, reset);
      await auditService.record(ex, operatorSource(user.account_id), 'user.password_reset', {
        type: 'user',
        id: user.user_id,
      });
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
    const accepted = await acceptablePassword(password, user);
    const passwordHash = await hashPassword(accepted);
    const changes = { password_hash: passwordHash, updated_at: nowMicros() };
    await db.write(async (ex) => {
      // Taken inside the transaction: of two requests racing with one link, one sets the password.
      if (!(await usersRepository.takePasswordLink(ex, linkHash))) throw errors.invalidPasswordLink();
      await usersRepository.update(ex, user.account_id, user.user_id, changes);
      await usersRepository.deleteSessionsOf(ex, user.account_id, user.user_id);
    });
    return userRowToUser({ ...user, ...changes });
  },
};
