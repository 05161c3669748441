import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/failures.js';
import type { IntegrationsTable } from './integrations.tables.js';

/**
 * Runs `statement` under a savepoint and answers its result, or `clash` when it broke a unique index (the
 * account's one ACTIVE integration): the transaction goes on (PostgreSQL would otherwise refuse every later
 * statement of it), so the caller can read the integration that won.
 */
async function unlessClash<T, C>(ex: Executor, statement: () => Promise<T>, clash: C): Promise<T | C> {
  await sql`savepoint integration_write`.execute(ex);
  try {
    const result = await statement();
    await sql`release savepoint integration_write`.execute(ex);
    return result;
  } catch (error) {
    await sql`rollback to savepoint integration_write`.execute(ex);
    await sql`release savepoint integration_write`.execute(ex);
    if (isUniqueViolation(error)) return clash;
    throw error;
  }
}

export const integrationsRepository = {
  async find(ex: Executor, accountId: string, integrationId: string): Promise<IntegrationsTable | undefined> {
    return ex
      .selectFrom('integrations')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .executeTakeFirst();
  },

  /** The account's ACTIVE integration, if any (there is at most one). */
  async findActive(ex: Executor, accountId: string): Promise<IntegrationsTable | undefined> {
    return ex
      .selectFrom('integrations')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('status', '=', 'ACTIVE')
      .executeTakeFirst();
  },

  /** Inserts an ACTIVE integration; false when the account has one already (committed by another request). */
  async insertActive(ex: Executor, row: IntegrationsTable): Promise<boolean> {
    return unlessClash(
      ex,
      async () => {
        await ex.insertInto('integrations').values(row).execute();
        return true;
      },
      false,
    );
  },

  /** ACTIVE → DISABLED; answers the integration as it is now, or undefined when it was not ACTIVE (or is absent). */
  async disconnect(
    ex: Executor,
    accountId: string,
    integrationId: string,
    now: number,
  ): Promise<IntegrationsTable | undefined> {
    return ex
      .updateTable('integrations')
      .set({ status: 'DISABLED', updated_at: now, disconnected_at: now })
      .where('account_id', '=', accountId)
      .where('integration_id', '=', integrationId)
      .where('status', '=', 'ACTIVE')
      .returningAll()
      .executeTakeFirst();
  },

  /**
   * DISABLED → ACTIVE; answers the integration as it is now, undefined when it was not DISABLED (or is absent),
   * or 'clash' when the account has another ACTIVE integration (committed by another request).
   */
  async reactivate(
    ex: Executor,
    accountId: string,
    integrationId: string,
    now: number,
  ): Promise<IntegrationsTable | undefined | 'clash'> {
    return unlessClash(
      ex,
      () =>
        ex
          .updateTable('integrations')
          .set({ status: 'ACTIVE', updated_at: now, disconnected_at: null })
          .where('account_id', '=', accountId)
          .where('integration_id', '=', integrationId)
          .where('status', '=', 'DISABLED')
          .returningAll()
          .executeTakeFirst(),
      'clash' as const,
    );
  },

  /** The account's integrations in creation order (ids sort by creation), after `afterId`, with their vendor's name. */
  async list(
    ex: Executor,
    accountId: string,
    page: { afterId?: string; limit: number },
  ): Promise<(IntegrationsTable & { vendor_name: string | null })[]> {
    let query = ex
      .selectFrom('integrations as i')
      .leftJoin('vendors as v', 'v.vendor_id', 'i.vendor')
      .selectAll('i')
      .select('v.name as vendor_name')
      .where('i.account_id', '=', accountId);
    if (page.afterId !== undefined) query = query.where('i.integration_id', '>', page.afterId);
    return query
      .orderBy('i.integration_id')
      .limit(page.limit + 1)
      .execute();
  },
};
