import type { SessionStore } from '@fastify/session';
import type { FastifyBaseLogger, Session } from 'fastify';
import type { Db, Executor } from '../../db/database.js';
import { isDatabaseUnavailable, isStorageFull } from '../../db/failures.js';
import { nowMicros } from '../../lib/clock.js';
import { isOneOf, isRecord } from '../../lib/guards.js';
import { authService, hashSecret, type AuthContext } from '../auth/auth.service.js';
import { ROLE_SCOPES, ROLES, type Role } from './roles.js';
import { usersRepository } from './users.repository.js';

declare module 'fastify' {
  interface Session {
    /** Set at sign-in; a session without them is nobody's and is never stored. */
    userId?: string;
    accountId?: string;
    /** microseconds: when the password was checked, then when the second step was (a new session id each time) */
    signedInAt?: number;
    /**
     * Set while the sign-in is halfway (docs/console.md): the password was right, and the session may only send
     * a code (MFA_CODE) or set up two-step sign-in (MFA_ENROLMENT). It calls nothing of the API meanwhile.
     */
    step?: 'MFA_CODE' | 'MFA_ENROLMENT';
    /** Read from the user at every load, so a change of role or a disable applies to the next request. */
    role?: string;
    email?: string;
    /** @fastify/csrf-protection's secret */
    _csrf?: string;
  }
}

export interface SessionLimits {
  /** microseconds without a request after which a session ends */
  idle: number;
  /** microseconds after sign-in after which a session ends, however active */
  absolute: number;
}

/** A session's last-seen time is written at most this often (every request would be a write). */
const TOUCH_EVERY = 60_000_000;
/** A sign-in halfway (a code to send, an authenticator to set up) ends this long after its password was checked. */
export const HALFWAY_TTL = 15 * 60_000_000;

/** When a session ends at the latest: a halfway one soon after its password, a signed-in one after `absolute`. */
export const sessionEnd = (session: { signedInAt: number; step?: string }, limits: SessionLimits): number =>
  session.signedInAt + (session.step ? Math.min(HALFWAY_TTL, limits.absolute) : limits.absolute);

const fail = (callback: (error?: unknown) => void) => (error: unknown) => callback(error);

/**
 * @fastify/session's store over the service's database, shared by every process. Sessions are kept by the
 * SHA-256 of their id. A load ends (deletes) a session past its idle or absolute expiry or whose user is
 * disabled, and answers it with the user's current role.
 *
 * What a load writes is housekeeping: the last-seen time (at most once a minute) and the deletion of an ended
 * session. When the database cannot take that write now (a full disk; busy, locked or going away), the load answers
 * as if it had been written: a read is not refused for it. The session then counts as idle since the last time that
 * was written (it ends sooner, never later), the next request writes it again, and an ended session stays refused
 * (every load checks it again) until the maintenance sweep deletes it past its idle or absolute time. Any other
 * failure fails the request.
 */
export class DbSessionStore implements SessionStore {
  constructor(
    private readonly db: Db,
    private readonly limits: SessionLimits,
    private readonly log: FastifyBaseLogger,
  ) {}

  set(sessionId: string, session: Session, callback: (error?: unknown) => void): void {
    const { userId, accountId, signedInAt, step } = session;
    if (!userId || !accountId || signedInAt === undefined) {
      callback();
      return;
    }
    const now = nowMicros();
    const data = JSON.stringify({ userId, accountId, signedInAt, step, _csrf: session._csrf, cookie: session.cookie });
    usersRepository
      .upsertSession(this.db.direct, {
        session_hash: hashSecret(sessionId),
        account_id: accountId,
        user_id: userId,
        data_json: data,
        created_at: signedInAt,
        last_seen_at: now,
        expires_at: sessionEnd({ signedInAt, step }, this.limits),
      })
      .then(() => callback(), fail(callback));
  }

  get(sessionId: string, callback: (error: unknown, session?: Session | null) => void): void {
    this.load(this.db.direct, hashSecret(sessionId)).then(
      (session) => callback(null, session),
      (error: unknown) => callback(error),
    );
  }

  destroy(sessionId: string, callback: (error?: unknown) => void): void {
    usersRepository.deleteSession(this.db.direct, hashSecret(sessionId)).then(() => callback(), fail(callback));
  }

  private async load(ex: Executor, hash: string): Promise<Session | null> {
    const row = await usersRepository.findSession(ex, hash);
    if (!row) return null;
    const now = nowMicros();
    const ended = row.disabled_at !== null || Boolean(row.password_reset);
    if (ended || row.expires_at <= now || row.last_seen_at + this.limits.idle <= now) {
      await this.housekeeping(usersRepository.deleteSession(ex, hash), 'an ended session was not deleted');
      return null;
    }
    if (now - row.last_seen_at >= Math.min(TOUCH_EVERY, this.limits.idle / 4))
      await this.housekeeping(usersRepository.touchSession(ex, hash, now), 'its last-seen time was not written');
    const data: unknown = { ...JSON.parse(row.data_json), role: row.role, email: row.email };
    // The stored data is what set() wrote; the user's role and email are read fresh.
    return isSessionData(data) ? data : null;
  }

  private async housekeeping(write: Promise<unknown>, what: string): Promise<void> {
    try {
      await write;
    } catch (error) {
      if (!isStorageFull(error) && !isDatabaseUnavailable(error)) throw error;
      this.log.warn({ err: error }, `console session: ${what}; the request goes on`);
    }
  }
}

/** Session data as set() stores it: whose session it is, and since when. */
function isSessionData(value: unknown): value is Session {
  return (
    isRecord(value) &&
    typeof value.userId === 'string' &&
    typeof value.accountId === 'string' &&
    typeof value.signedInAt === 'number' &&
    (value.step === undefined || value.step === 'MFA_CODE' || value.step === 'MFA_ENROLMENT')
  );
}

/**
 * Accounts' cursor keys, read once: a key is made with its account and never changes, so every process may keep
 * it (a console request would otherwise read it on every call, beside the session's own lookup).
 */
const cursorKeys = new Map<string, Buffer>();

/**
 * The caller a signed-in session stands for, with its role's scopes; null for a session of nobody, and for a
 * sign-in halfway (its second step not done): such a session calls nothing of the API.
 */
export async function sessionCaller(db: Db, session: Session | null | undefined): Promise<AuthContext | null> {
  if (!session?.userId || !session.accountId || !session.role || session.step !== undefined) return null;
  const role: Role = isOneOf(ROLES, session.role) ? session.role : 'READ_ONLY';
  const cursorKey = cursorKeys.get(session.accountId) ?? (await authService.cursorKeyOf(db.direct, session.accountId));
  if (!cursorKey) return null;
  if (cursorKeys.size >= 10_000) cursorKeys.clear();
  cursorKeys.set(session.accountId, cursorKey);
  return {
    accountId: session.accountId,
    actor: { type: 'user', id: session.userId },
    clientId: session.userId,
    scopes: new Set(ROLE_SCOPES[role]),
    cursorKey,
    role,
  };
}
