import type { Executor } from '../../db/database.js';
import { authRepository } from './auth.repository.js';
import type { OauthClientsTable, OauthCodesTable, RefreshTokensTable } from './auth.tables.js';

/** A connection of an app to an account, with the app's name. */
export interface ConnectionRow extends OauthClientsTable {
  app_name: string;
}

/** Connections (an app's client in an account), authorization codes and refresh tokens. */
export const grantsRepository = {
  async activeConnection(ex: Executor, accountId: string, appId: string): Promise<OauthClientsTable | undefined> {
    return ex
      .selectFrom('oauth_clients')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('app_id', '=', appId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  },

  async findConnection(ex: Executor, accountId: string, clientId: string): Promise<OauthClientsTable | undefined> {
    return ex
      .selectFrom('oauth_clients')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .executeTakeFirst();
  },

  /** Inserts the connection unless the account has an active one for the app already. */
  async insertConnectionUnlessActive(ex: Executor, row: OauthClientsTable): Promise<void> {
    await ex
      .insertInto('oauth_clients')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  async listConnections(ex: Executor, accountId: string): Promise<ConnectionRow[]> {
    return ex
      .selectFrom('oauth_clients as c')
      .innerJoin('oauth_apps as a', 'a.app_id', 'c.app_id')
      .selectAll('c')
      .select('a.name as app_name')
      .where('c.account_id', '=', accountId)
      .where('c.revoked_at', 'is', null)
      .orderBy('c.created_at')
      .orderBy('c.client_id')
      .execute();
  },

  /** Revokes the connection as a client is revoked (its access tokens deleted), and spends its refresh tokens and codes. */
  async revokeConnection(ex: Executor, accountId: string, clientId: string, now: number): Promise<void> {
    await authRepository.revokeClient(ex, accountId, clientId, now);
    for (const table of ['refresh_tokens', 'oauth_codes'] as const) {
      await ex
        .updateTable(table)
        .set({ used_at: now })
        .where('account_id', '=', accountId)
        .where('client_id', '=', clientId)
        .where('used_at', 'is', null)
        .execute();
    }
  },

  async insertCode(ex: Executor, row: OauthCodesTable): Promise<void> {
    await ex.insertInto('oauth_codes').values(row).execute();
  },

  async findCode(ex: Executor, codeHash: string): Promise<OauthCodesTable | undefined> {
    return ex.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
  },

  /** Spends the code for this family; false when another request spent it first. */
  async spendCode(ex: Executor, code: OauthCodesTable, familyId: string, now: number): Promise<boolean> {
    const result = await ex
      .updateTable('oauth_codes')
      .set({ used_at: now, family_id: familyId })
      .where('account_id', '=', code.account_id)
      .where('code_hash', '=', code.code_hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async insertRefreshToken(ex: Executor, row: RefreshTokensTable): Promise<void> {
    await ex.insertInto('refresh_tokens').values(row).execute();
  },

  async findRefreshToken(ex: Executor, tokenHash: string): Promise<RefreshTokensTable | undefined> {
    return ex.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  },

  /** Spends the refresh token; false when another request spent it first. */
  async spendRefreshToken(ex: Executor, token: RefreshTokensTable, now: number): Promise<boolean> {
    const result = await ex
      .updateTable('refresh_tokens')
      .set({ used_at: now })
      .where('account_id', '=', token.account_id)
      .where('token_hash', '=', token.token_hash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Revokes a refresh family: its access tokens deleted, its refresh tokens spent. */
  async revokeFamily(ex: Executor, accountId: string, familyId: string, now: number): Promise<void> {
    await ex
      .deleteFrom('access_tokens')
      .where('account_id', '=', accountId)
      .where('family_id', '=', familyId)
      .execute();
    await ex
      .updateTable('refresh_tokens')
      .set({ used_at: now })
      .where('account_id', '=', accountId)
      .where('family_id', '=', familyId)
      .where('used_at', 'is', null)
      .execute();
  },

  /** Codes and refresh tokens past their expiry (maintenance); returns how many. */
  async deleteExpired(ex: Executor, now: number): Promise<number> {
    const codes = await ex.deleteFrom('oauth_codes').where('expires_at', '<', now).executeTakeFirst();
    const refresh = await ex.deleteFrom('refresh_tokens').where('expires_at', '<', now).executeTakeFirst();
    return Number(codes.numDeletedRows) + Number(refresh.numDeletedRows);
  },
};
