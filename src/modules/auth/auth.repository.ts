import type { Executor } from '../../db/database.js';
import { sql } from 'kysely';
import { preparedQuery } from '../../db/prepared.js';
import { dialectOf } from '../../db/schema.js';
import type { OauthClientsTable } from './auth.tables.js';

export interface TokenGrant {
  account_id: string;
  client_id: string;
  scopes: string;
  expires_at: number;
  cursor_key: string;
}

const grantQuery = preparedQuery(['tokenHash'], (db, param) =>
  db
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
const changeMarkQuery = preparedQuery([], (db) =>
  db.selectNoFrom(sql<string>`total_changes() || ':' || (select data_version from pragma_data_version)`.as('mark')),
);

export const authRepository = {
  async changeMark(db: Executor): Promise<string | null> {
    if (dialectOf(db as never) !== 'sqlite') return null;
    return (await changeMarkQuery(db, {})).rows[0]?.mark ?? null;
  },

  async ensureAccount(db: Executor, accountId: string, cursorKey: string, now: number): Promise<void> {
    await db
      .insertInto('accounts')
      .values({ account_id: accountId, cursor_key: cursorKey, created_at: now })
      .onConflict((oc) => oc.column('account_id').doNothing())
      .execute();
  },

  async insertClient(db: Executor, client: OauthClientsTable): Promise<void> {
    await db.insertInto('oauth_clients').values(client).execute();
  },

  async findClient(db: Executor, clientId: string): Promise<OauthClientsTable | undefined> {
    return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
  },

  async listClients(db: Executor, accountId: string | null): Promise<OauthClientsTable[]> {
    let query = db.selectFrom('oauth_clients').selectAll().orderBy('account_id').orderBy('client_id');
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    return query.execute();
  },

  /** Marks the client revoked and deletes its tokens; false when no active client has that id. */
  async revokeClient(db: Executor, clientId: string, now: number): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const client = await trx
        .selectFrom('oauth_clients')
        .select(['account_id', 'revoked_at'])
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      if (!client || client.revoked_at !== null) return false;
      await trx
        .updateTable('oauth_clients')
        .set({ revoked_at: now })
        .where('account_id', '=', client.account_id)
        .where('client_id', '=', clientId)
        .execute();
      await trx
        .deleteFrom('access_tokens')
        .where('account_id', '=', client.account_id)
        .where('client_id', '=', clientId)
        .execute();
      return true;
    });
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
