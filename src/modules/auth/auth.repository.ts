import type { ByDialect, Executor } from '../../db/database.js';
import { sql } from 'kysely';
import { preparedQuery } from '../../db/prepared.js';
import type { OauthClientsTable } from './auth.tables.js';

export interface TokenGrant {
  account_id: string;
  client_id: string;
  scopes: string;
  expires_at: number;
  cursor_key: string;
}

const grantQuery = preparedQuery<{ tokenHash: string }>()((ex, param) =>
  ex
    .selectFrom('access_tokens as t')
    .innerJoin('oauth_clients as c', (j) =>
      j.onRef('c.account_id', '=', 't.account_id').onRef('c.client_id', '=', 't.client_id'),
    )
    .innerJoin('accounts as a', 'a.account_id', 't.account_id')
    .select(['t.account_id', 't.client_id', 't.scopes', 't.expires_at', 'a.cursor_key'])
    .where('t.token_hash', '=', param('tokenHash'))
    .where('c.revoked_at', 'is', null),
);

/**
 * SQLite: a mark that changes whenever anything in the database may have changed: rows written by this
 * connection (total_changes) or any commit by another connection or process (data_version). Equal marks mean
 * equal data. PostgreSQL has no such counter: null.
 */
const changeMarkQuery = preparedQuery<Record<string, never>>()((ex) =>
  ex.selectNoFrom(sql<string>`total_changes() || ':' || (select data_version from pragma_data_version)`.as('mark')),
);

const changeMarkBy: ByDialect<(ex: Executor) => Promise<string | null>> = {
  sqlite: async (ex) => (await changeMarkQuery(ex, {})).rows[0]?.mark ?? null,
  postgres: async () => null,
};

export const authRepository = {
  async changeMark(ex: Executor): Promise<string | null> {
    return changeMarkBy[ex.dialect](ex);
  },

  async ensureAccount(db: Executor, accountId: string, cursorKey: string, now: number): Promise<void> {
    await db
      .insertInto('accounts')
      .values({ account_id: accountId, cursor_key: cursorKey, created_at: now })
      .onConflict((oc) => oc.column('account_id').doNothing())
      .execute();
  },

  async cursorKeyOf(ex: Executor, accountId: string): Promise<string | undefined> {
    const row = await ex
      .selectFrom('accounts')
      .select('cursor_key')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row?.cursor_key;
  },

  async insertClient(db: Executor, client: OauthClientsTable): Promise<void> {
    await db.insertInto('oauth_clients').values(client).execute();
  },

  async findClient(db: Executor, clientId: string): Promise<OauthClientsTable | undefined> {
    return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  },

  async listClients(db: Executor, accountId: string | null): Promise<OauthClientsTable[]> {
    let query = db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('app_id', 'is', null)
      .orderBy('account_id')
      .orderBy('client_id');
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    return query.execute();
  },

  async setSecret(
    ex: Executor,
    accountId: string,
    clientId: string,
    secret: Pick<OauthClientsTable, 'secret_hash' | 'previous_secret_hash' | 'previous_secret_expires_at'>,
  ): Promise<void> {
    await ex
      .updateTable('oauth_clients')
      .set(secret)
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .execute();
  },

  /** Marks the client revoked and deletes its tokens (in the caller's transaction). */
  async revokeClient(ex: Executor, accountId: string, clientId: string, now: number): Promise<void> {
    await ex
      .updateTable('oauth_clients')
      .set({ revoked_at: now })
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .execute();
    await ex
      .deleteFrom('access_tokens')
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .execute();
  },

  async insertToken(
    db: Executor,
    token: {
      account_id: string;
      token_hash: string;
      client_id: string;
      scopes: string;
      created_at: number;
      expires_at: number;
      family_id: string | null;
    },
  ): Promise<void> {
    await db.insertInto('access_tokens').values(token).execute();
  },

  /** The grant behind a token hash, if its client is still active. One indexed lookup per request. */
  async findGrant(db: Executor, tokenHash: string): Promise<TokenGrant | undefined> {
    return (await grantQuery(db, { tokenHash })).rows[0];
  },

  async deleteExpiredTokens(db: Executor, now: number): Promise<number> {
    const result = await db.deleteFrom('access_tokens').where('expires_at', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
