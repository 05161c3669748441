import type { ByDialect, Executor } from '../../db/database.js';
import { preparedQuery } from '../../speed/prepared.js';
import type { AccessTokensTable, OauthClientsTable } from './auth.tables.js';

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

/** One token, compiled once: SQLite runs it per token of a group in the group's transaction (`each`). */
const insertToken = preparedQuery<{ [K in keyof AccessTokensTable]: AccessTokensTable[K] }>()((ex, p) =>
  ex.insertInto('access_tokens').values({
    account_id: p('account_id'),
    token_hash: p('token_hash'),
    client_id: p('client_id'),
    scopes: p('scopes'),
    created_at: p('created_at'),
    expires_at: p('expires_at'),
    family_id: p('family_id'),
  }),
);

/**
 * A group of tokens. SQLite: one compiled INSERT run per token (in process a statement is a call; building and
 * compiling a multi-row INSERT of each group's size cost more than running it: token issuance +19%, the server's CPU
 * a token −16%, docs/performance.md). PostgreSQL: one multi-row INSERT a group, one round trip (as arrays through
 * `unnest` it measured the same).
 */
const insertTokensBy: ByDialect<(ex: Executor, tokens: readonly AccessTokensTable[]) => Promise<unknown>> = {
  sqlite: (ex, tokens) => insertToken.each(ex, tokens),
  postgres: (ex, tokens) => ex.insertInto('access_tokens').values(tokens).execute(),
};

// Its columns named, not `*`: a named statement on PostgreSQL keeps its result's columns, and a column a later
// migration adds while the process runs would otherwise fail it (src/speed/postgres-named.ts).
const clientQuery = preparedQuery<{ clientId: string }>()((ex, param) =>
  ex
    .selectFrom('oauth_clients')
    .select([
      'account_id',
      'client_id',
      'secret_hash',
      'scopes',
      'created_at',
      'revoked_at',
      'app_id',
      'granted_by',
      'previous_secret_hash',
      'previous_secret_expires_at',
      'name',
      'last_used_at',
    ])
    .where('client_id', '=', param('clientId')),
);

export const authRepository = {
  async ensureAccount(ex: Executor, accountId: string, cursorKey: string, now: number): Promise<void> {
    await ex
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

  async insertClient(ex: Executor, client: OauthClientsTable): Promise<void> {
    await ex.insertInto('oauth_clients').values(client).execute();
  },

  /** Every token request reads its client: a prepared query (src/speed/prepared.ts). */
  async findClient(ex: Executor, clientId: string): Promise<OauthClientsTable | undefined> {
    return (await clientQuery(ex, { clientId })).rows[0];
  },

  async listClients(ex: Executor, accountId: string | null): Promise<OauthClientsTable[]> {
    let query = ex
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

  /** Sets the client's last use to `now` unless another request set it after `staleBefore` (one row, by key). */
  async markUsed(ex: Executor, accountId: string, clientId: string, now: number, staleBefore: number): Promise<void> {
    await ex
      .updateTable('oauth_clients')
      .set({ last_used_at: now })
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .where((w) => w.or([w('last_used_at', 'is', null), w('last_used_at', '<=', staleBefore)]))
      .execute();
  },

  async setName(ex: Executor, accountId: string, clientId: string, name: string): Promise<void> {
    await ex
      .updateTable('oauth_clients')
      .set({ name })
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .execute();
  },

  /** Sets a client's scopes (space-separated, as stored): an API client's, or a partner app's connection's. */
  async setScopes(ex: Executor, accountId: string, clientId: string, scopes: string): Promise<void> {
    await ex
      .updateTable('oauth_clients')
      .set({ scopes })
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .execute();
  },

  /** The distinct scope sets of the client's live access tokens (few: one per set a token was asked with). */
  async tokenScopeSets(ex: Executor, accountId: string, clientId: string): Promise<string[]> {
    const rows = await ex
      .selectFrom('access_tokens')
      .select('scopes')
      .distinct()
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .execute();
    return rows.map((row) => row.scopes);
  },

  /** Gives the client's tokens that hold `from` the scopes `to` instead (`to` empty: deletes them). */
  async replaceTokenScopes(ex: Executor, accountId: string, clientId: string, from: string, to: string): Promise<void> {
    if (to === '') {
      await ex
        .deleteFrom('access_tokens')
        .where('account_id', '=', accountId)
        .where('client_id', '=', clientId)
        .where('scopes', '=', from)
        .execute();
      return;
    }
    await ex
      .updateTable('access_tokens')
      .set({ scopes: to })
      .where('account_id', '=', accountId)
      .where('client_id', '=', clientId)
      .where('scopes', '=', from)
      .execute();
  },

  /** Ends the client's live access tokens (or the one with `tokenHash`) at `now`; answers how many. */
  async expireAccessTokens(ex: Executor, clientId: string, now: number, tokenHash?: string): Promise<number> {
    let query = ex
      .updateTable('access_tokens')
      .set({ expires_at: now })
      .where('client_id', '=', clientId)
      .where('expires_at', '>', now);
    if (tokenHash !== undefined) query = query.where('token_hash', '=', tokenHash);
    return Number((await query.executeTakeFirst()).numUpdatedRows);
  },

  /**
   * The token writer's groups (at most 500 tokens), in the caller's transaction, which makes a group all or nothing (on
   * SQLite each token is a statement of its own: insertTokensBy).
   */
  async insertTokens(ex: Executor, tokens: readonly AccessTokensTable[]): Promise<void> {
    if (tokens.length > 0) await insertTokensBy[ex.dialect](ex, tokens);
  },

  /** The grant behind a token hash, if its client is still active. One indexed lookup per request. */
  async findGrant(ex: Executor, tokenHash: string): Promise<TokenGrant | undefined> {
    return (await grantQuery(ex, { tokenHash })).rows[0];
  },

  async deleteExpiredTokens(ex: Executor, now: number): Promise<number> {
    const result = await ex.deleteFrom('access_tokens').where('expires_at', '<', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
