import type { ByDialect, Executor } from '../../db/database.js';
import type { UserPasskeysTable } from './mfa.tables.js';

type UserKey = { account_id: string; user_id: string };

export type PasskeyCeremony = 'REGISTRATION' | 'AUTHENTICATION';

/** bigint columns come back as strings from PostgreSQL. */
const passkeyOf = (row: UserPasskeysTable): UserPasskeysTable => ({
  ...row,
  counter: Number(row.counter),
  created_at: Number(row.created_at),
  last_used_at: row.last_used_at === null ? null : Number(row.last_used_at),
});

/** The user's row, locked until the transaction ends: SQLite's write transaction holds the only write lock. */
const lockUser: ByDialect<(ex: Executor, user: UserKey) => Promise<void>> = {
  sqlite: async () => {},
  postgres: async (ex, user) => {
    await ex
      .selectFrom('users')
      .select('user_id')
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .forUpdate()
      .execute();
  },
};

export const passkeysRepository = {
  async list(ex: Executor, user: UserKey): Promise<UserPasskeysTable[]> {
    const rows = await ex
      .selectFrom('user_passkeys')
      .selectAll()
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .orderBy('created_at')
      .orderBy('passkey_id')
      .execute();
    return rows.map(passkeyOf);
  },

  async count(ex: Executor, user: UserKey): Promise<number> {
    const row = await ex
      .selectFrom('user_passkeys')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** The user's passkey of this credential id; another user's credential is not found. */
  async findByCredential(ex: Executor, user: UserKey, credentialId: string): Promise<UserPasskeysTable | undefined> {
    const row = await ex
      .selectFrom('user_passkeys')
      .selectAll()
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return row && passkeyOf(row);
  },

  async credentialTaken(ex: Executor, credentialId: string): Promise<boolean> {
    const row = await ex
      .selectFrom('user_passkeys')
      .select('passkey_id')
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return row !== undefined;
  },

  async insert(ex: Executor, row: UserPasskeysTable): Promise<void> {
    await ex.insertInto('user_passkeys').values(row).execute();
  },

  /** Deletes the user's passkey; answers it, or undefined when the user has none of that id. */
  async delete(ex: Executor, user: UserKey, passkeyId: string): Promise<UserPasskeysTable | undefined> {
    const row = await ex
      .deleteFrom('user_passkeys')
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .where('passkey_id', '=', passkeyId)
      .returningAll()
      .executeTakeFirst();
    return row && passkeyOf(row);
  },

  /**
   * Records a sign-in with the passkey: its new counter, only while the counter is still the one the assertion was
   * checked against (of two sign-ins racing with one authenticator's counter, one counts). Answers whether it did.
   */
  async recordUse(ex: Executor, passkey: UserPasskeysTable, counter: number, now: number): Promise<boolean> {
    const result = await ex
      .updateTable('user_passkeys')
      .set({ counter, last_used_at: now })
      .where('account_id', '=', passkey.account_id)
      .where('user_id', '=', passkey.user_id)
      .where('passkey_id', '=', passkey.passkey_id)
      .where('counter', '=', passkey.counter)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Locks the user for a change of their factors (PostgreSQL: their users row; SQLite: the write lock). */
  lockUser: (ex: Executor, user: UserKey): Promise<void> => lockUser[ex.dialect](ex, user),

  // ---- the session's challenge -------------------------------------------------------------------------------

  /** Sets the session's challenge in place of any other; answers whether the session's row exists. */
  async setChallenge(
    ex: Executor,
    sessionHash: string,
    challenge: { value: string; ceremony: PasskeyCeremony; expiresAt: number },
  ): Promise<boolean> {
    const result = await ex
      .updateTable('user_sessions')
      .set({
        passkey_challenge: challenge.value,
        passkey_ceremony: challenge.ceremony,
        passkey_challenge_expires_at: challenge.expiresAt,
      })
      .where('session_hash', '=', sessionHash)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /**
   * Takes the session's challenge: clears it, and answers it if it is of `ceremony` and unexpired (else null).
   * Cleared only if still the one read, so that of two requests answering one challenge one takes it.
   */
  async takeChallenge(
    ex: Executor,
    sessionHash: string,
    ceremony: PasskeyCeremony,
    now: number,
  ): Promise<string | null> {
    const row = await ex
      .selectFrom('user_sessions')
      .select(['passkey_challenge', 'passkey_ceremony', 'passkey_challenge_expires_at'])
      .where('session_hash', '=', sessionHash)
      .executeTakeFirst();
    const value = row?.passkey_challenge;
    if (!row || !value) return null;
    const result = await ex
      .updateTable('user_sessions')
      .set({ passkey_challenge: null, passkey_ceremony: null, passkey_challenge_expires_at: null })
      .where('session_hash', '=', sessionHash)
      .where('passkey_challenge', '=', value)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return null;
    const expiresAt = Number(row.passkey_challenge_expires_at);
    return row.passkey_ceremony === ceremony && expiresAt > now ? value : null;
  },
};
