import type { ExpressionBuilder } from 'kysely';
import type { Database, Executor } from '../../db/database.js';
import type { UserPasswordLinksTable, UserSessionsTable, UsersTable } from './users.tables.js';

/** A user as read: the row, and whether a second factor (a confirmed TOTP authenticator, a passkey) is theirs. */
export interface UserRow extends UsersTable {
  mfa_enrolled: number | boolean;
}

/**
 * Whether the user of the row has a second factor: a confirmed TOTP authenticator or a passkey (indexed lookups by
 * the keys of user_totp and user_passkeys).
 */
const mfaEnrolled = (eb: ExpressionBuilder<Database, 'users'>) =>
  eb
    .or([
      eb.exists(
        eb
          .selectFrom('user_totp as t')
          .select('t.user_id')
          .whereRef('t.account_id', '=', 'users.account_id')
          .whereRef('t.user_id', '=', 'users.user_id')
          .where('t.confirmed_at', 'is not', null),
      ),
      eb.exists(
        eb
          .selectFrom('user_passkeys as p')
          .select('p.user_id')
          .whereRef('p.account_id', '=', 'users.account_id')
          .whereRef('p.user_id', '=', 'users.user_id'),
      ),
    ])
    .as('mfa_enrolled');

/** A session with the user it belongs to, as one lookup reads them. */
export interface SessionWithUser extends UserSessionsTable {
  email: string;
  role: string;
  disabled_at: number | null;
  /** The user's password was reset and no new one is set yet: no session of theirs stands. */
  password_reset: number | boolean;
}

export const usersRepository = {
  async insert(ex: Executor, user: UsersTable): Promise<void> {
    await ex.insertInto('users').values(user).execute();
  },

  async findByEmail(ex: Executor, email: string): Promise<UserRow | undefined> {
    return ex.selectFrom('users').selectAll().select(mfaEnrolled).where('email', '=', email).executeTakeFirst();
  },

  async find(ex: Executor, accountId: string, userId: string): Promise<UserRow | undefined> {
    return ex
      .selectFrom('users')
      .selectAll()
      .select(mfaEnrolled)
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  },

  async findById(ex: Executor, userId: string): Promise<UserRow | undefined> {
    return ex.selectFrom('users').selectAll().select(mfaEnrolled).where('user_id', '=', userId).executeTakeFirst();
  },

  async emailsOf(ex: Executor, accountId: string, userIds: string[]): Promise<{ user_id: string; email: string }[]> {
    return ex
      .selectFrom('users')
      .select(['user_id', 'email'])
      .where('account_id', '=', accountId)
      .where('user_id', 'in', userIds)
      .execute();
  },

  async list(ex: Executor, accountId: string | null): Promise<UserRow[]> {
    let query = ex.selectFrom('users').selectAll().select(mfaEnrolled).orderBy('account_id').orderBy('email');
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    return query.execute();
  },

  async update(
    ex: Executor,
    accountId: string,
    userId: string,
    changes: Partial<Omit<UsersTable, 'account_id' | 'user_id' | 'created_at'>>,
  ): Promise<void> {
    await ex
      .updateTable('users')
      .set(changes)
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .execute();
  },

  /** Updates the user only while their password hash is `passwordHash`; answers whether it did. */
  async updateIfPassword(
    ex: Executor,
    user: { account_id: string; user_id: string },
    passwordHash: string,
    changes: Partial<Omit<UsersTable, 'account_id' | 'user_id' | 'created_at'>>,
  ): Promise<boolean> {
    const result = await ex
      .updateTable('users')
      .set(changes)
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .where('password_hash', '=', passwordHash)
      .where('disabled_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  // ---- sessions ----------------------------------------------------------------------------------------------

  async upsertSession(ex: Executor, session: UserSessionsTable): Promise<void> {
    await ex
      .insertInto('user_sessions')
      .values(session)
      .onConflict((oc) =>
        oc.column('session_hash').doUpdateSet({ data_json: session.data_json, last_seen_at: session.last_seen_at }),
      )
      .execute();
  },

  async findSession(ex: Executor, sessionHash: string): Promise<SessionWithUser | undefined> {
    return ex
      .selectFrom('user_sessions as s')
      .innerJoin('users as u', (j) => j.onRef('u.account_id', '=', 's.account_id').onRef('u.user_id', '=', 's.user_id'))
      .selectAll('s')
      .select(['u.email', 'u.role', 'u.disabled_at', (eb) => eb('u.password_hash', 'is', null).as('password_reset')])
      .where('s.session_hash', '=', sessionHash)
      .executeTakeFirst();
  },

  async touchSession(ex: Executor, sessionHash: string, now: number): Promise<void> {
    await ex.updateTable('user_sessions').set({ last_seen_at: now }).where('session_hash', '=', sessionHash).execute();
  },

  async deleteSession(ex: Executor, sessionHash: string): Promise<void> {
    await ex.deleteFrom('user_sessions').where('session_hash', '=', sessionHash).execute();
  },

  async deleteSessionsOf(ex: Executor, accountId: string, userId: string): Promise<void> {
    await ex.deleteFrom('user_sessions').where('account_id', '=', accountId).where('user_id', '=', userId).execute();
  },

  async deleteEndedSessions(ex: Executor, now: number, idleSince: number): Promise<number> {
    const result = await ex
      .deleteFrom('user_sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleSince)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  // ---- password links ----------------------------------------------------------------------------------------

  async insertPasswordLink(ex: Executor, link: UserPasswordLinksTable): Promise<void> {
    await ex.insertInto('user_password_links').values(link).execute();
  },

  async findPasswordLink(ex: Executor, linkHash: string): Promise<UserPasswordLinksTable | undefined> {
    return ex.selectFrom('user_password_links').selectAll().where('link_hash', '=', linkHash).executeTakeFirst();
  },

  /** Takes the link (deletes it) and answers it: a link works once, however many requests race for it. */
  async takePasswordLink(ex: Executor, linkHash: string): Promise<UserPasswordLinksTable | undefined> {
    return ex.deleteFrom('user_password_links').where('link_hash', '=', linkHash).returningAll().executeTakeFirst();
  },

  async deleteExpiredPasswordLinks(ex: Executor, now: number): Promise<number> {
    const result = await ex.deleteFrom('user_password_links').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  async deletePasswordLinksOf(ex: Executor, accountId: string, userId: string): Promise<void> {
    await ex
      .deleteFrom('user_password_links')
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .execute();
  },

  // ---- service secrets ---------------------------------------------------------------------------------------

  /** The named secret: the stored one, or `candidate` stored now (the first process to start wins). */
  async secret(ex: Executor, name: string, candidate: string, now: number): Promise<string> {
    await ex
      .insertInto('service_secrets')
      .values({ name, value: candidate, created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await ex
      .selectFrom('service_secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.value;
  },
};
