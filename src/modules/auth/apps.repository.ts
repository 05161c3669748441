import type { Executor } from '../../db/database.js';
import type { OauthAppsTable } from './auth.tables.js';

/** The operator's catalogue of partner apps (no account: every account may connect the same apps). */
export const appsRepository = {
  async insert(ex: Executor, row: OauthAppsTable): Promise<void> {
    await ex.insertInto('oauth_apps').values(row).execute();
  },

  async find(ex: Executor, appId: string): Promise<OauthAppsTable | undefined> {
    return ex.selectFrom('oauth_apps').selectAll().where('app_id', '=', appId).executeTakeFirst();
  },

  async list(ex: Executor): Promise<OauthAppsTable[]> {
    return ex.selectFrom('oauth_apps').selectAll().orderBy('app_id').execute();
  },

  async update(
    ex: Executor,
    appId: string,
    changes: Partial<Pick<OauthAppsTable, 'secret_hash' | 'disabled_at' | 'updated_at'>>,
  ): Promise<OauthAppsTable | undefined> {
    await ex.updateTable('oauth_apps').set(changes).where('app_id', '=', appId).execute();
    return appsRepository.find(ex, appId);
  },

  /**
   * Every token of the app's connections, in every account: access tokens deleted, refresh tokens and unused codes
   * spent (kept as used, so that a replay is still recognised).
   */
  async spendTokensOfApp(ex: Executor, appId: string, now: number): Promise<void> {
    await ex
      .deleteFrom('access_tokens')
      .where((eb) =>
        eb(
          eb.refTuple('account_id', 'client_id'),
          'in',
          eb
            .selectFrom('oauth_clients')
            .select(['account_id', 'client_id'])
            .where('app_id', '=', appId)
            .$asTuple('account_id', 'client_id'),
        ),
      )
      .execute();
    await ex
      .updateTable('refresh_tokens')
      .set({ used_at: now })
      .where('app_id', '=', appId)
      .where('used_at', 'is', null)
      .execute();
    await ex
      .updateTable('oauth_codes')
      .set({ used_at: now })
      .where('app_id', '=', appId)
      .where('used_at', 'is', null)
      .execute();
  },
};
