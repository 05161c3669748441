import type { Executor } from '../../db/database.js';
import type { AccountUserSettingsTable, UserRecoveryCodesTable, UserTotpTable } from './mfa.tables.js';

type UserKey = { account_id: string; user_id: string };

export const mfaRepository = {
  async findTotp(ex: Executor, user: UserKey): Promise<UserTotpTable | undefined> {
    const row = await ex
      .selectFrom('user_totp')
      .selectAll()
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .executeTakeFirst();
    return row && { ...row, last_used_step: row.last_used_step === null ? null : Number(row.last_used_step) };
  },

  /** A new secret awaiting its first code, in place of any unconfirmed one; never over a confirmed one. */
  async replaceUnconfirmedTotp(ex: Executor, row: UserTotpTable): Promise<void> {
    await ex
      .deleteFrom('user_totp')
      .where('account_id', '=', row.account_id)
      .where('user_id', '=', row.user_id)
      .where('confirmed_at', 'is', null)
      .execute();
    await ex.insertInto('user_totp').values(row).execute();
  },

  /** Confirms the secret (still unconfirmed and still `secret`) with the step its first code used; answers whether it did. */
  async confirmTotp(ex: Executor, user: UserKey, secret: string, step: number, now: number): Promise<boolean> {
    const result = await ex
      .updateTable('user_totp')
      .set({ confirmed_at: now, last_used_step: step })
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .where('secret', '=', secret)
      .where('confirmed_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /**
   * Takes a time step for a code: only one after the last one used. One statement, so of two requests with the
   * same code (a replay, or a race) one is accepted.
   */
  async useStep(ex: Executor, user: UserKey, step: number): Promise<boolean> {
    const result = await ex
      .updateTable('user_totp')
      .set({ last_used_step: step })
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .where('confirmed_at', 'is not', null)
      .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async replaceRecoveryCodes(ex: Executor, user: UserKey, hashes: string[], now: number): Promise<void> {
    await ex
      .deleteFrom('user_recovery_codes')
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .execute();
    const rows: UserRecoveryCodesTable[] = hashes.map((code_hash) => ({
      ...user,
      code_hash,
      created_at: now,
      used_at: null,
    }));
    await ex.insertInto('user_recovery_codes').values(rows).execute();
  },

  /** Uses up an unused recovery code; answers whether it did (one statement: a code works once, however raced). */
  async useRecoveryCode(ex: Executor, user: UserKey, hash: string, now: number): Promise<boolean> {
    const result = await ex
      .updateTable('user_recovery_codes')
      .set({ used_at: now })
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .where('code_hash', '=', hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async recoveryCodesLeft(ex: Executor, user: UserKey): Promise<number> {
    const row = await ex
      .selectFrom('user_recovery_codes')
      .select((eb) => eb.fn.countAll().as('left'))
      .where('account_id', '=', user.account_id)
      .where('user_id', '=', user.user_id)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.left);
  },

  /** The user's authenticator, passkeys and recovery codes, gone. */
  async deleteMfaOf(ex: Executor, user: UserKey): Promise<void> {
    for (const table of ['user_recovery_codes', 'user_totp', 'user_passkeys'] as const) {
      await ex
        .deleteFrom(table)
        .where('account_id', '=', user.account_id)
        .where('user_id', '=', user.user_id)
        .execute();
    }
  },

  // ---- the account's settings --------------------------------------------------------------------------------

  async settings(ex: Executor, accountId: string): Promise<AccountUserSettingsTable | undefined> {
    return ex.selectFrom('account_user_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  },

  async upsertSettings(ex: Executor, row: AccountUserSettingsTable): Promise<void> {
    await ex
      .insertInto('account_user_settings')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('account_id')
          .doUpdateSet({ mfa_required: row.mfa_required, updated_at: row.updated_at, updated_by: row.updated_by }),
      )
      .execute();
  },

  /** Ends the sessions of the account's users who have neither a confirmed authenticator nor a passkey; answers how many. */
  async deleteSessionsWithoutMfa(ex: Executor, accountId: string): Promise<number> {
    const result = await ex
      .deleteFrom('user_sessions')
      .where('account_id', '=', accountId)
      .where((eb) =>
        eb.not(
          eb.or([
            eb.exists(
              eb
                .selectFrom('user_totp as t')
                .select('t.user_id')
                .whereRef('t.account_id', '=', 'user_sessions.account_id')
                .whereRef('t.user_id', '=', 'user_sessions.user_id')
                .where('t.confirmed_at', 'is not', null),
            ),
            eb.exists(
              eb
                .selectFrom('user_passkeys as p')
                .select('p.user_id')
                .whereRef('p.account_id', '=', 'user_sessions.account_id')
                .whereRef('p.user_id', '=', 'user_sessions.user_id'),
            ),
          ]),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
