import type { Executor } from '../../db/database.js';
import type { AuditEventsTable } from './audit.tables.js';

export interface AuditFilter {
  actions?: readonly string[];
  actorId?: string;
  targetType?: string;
  targetId?: string;
  /** microseconds, inclusive */
  from?: number;
  /** microseconds, exclusive */
  until?: number;
}

export const auditRepository = {
  async insert(ex: Executor, row: AuditEventsTable): Promise<void> {
    await ex.insertInto('audit_events').values(row).execute();
  },

  /** When `action` was last recorded for the account (microseconds), or undefined: never. */
  async lastAt(ex: Executor, accountId: string, action: string): Promise<number | undefined> {
    const row = await ex
      .selectFrom('audit_events')
      .select((eb) => eb.fn.max('occurred_at').as('at'))
      .where('account_id', '=', accountId)
      .where('action', '=', action)
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  },

  /** Newest first: the page after `after` (its occurred_at and event_id), at most `limit` rows. */
  async list(
    ex: Executor,
    accountId: string,
    filter: AuditFilter,
    page: { after?: readonly [number, string]; limit: number },
  ): Promise<AuditEventsTable[]> {
    let query = ex.selectFrom('audit_events').selectAll().where('account_id', '=', accountId);
    if (filter.actions && filter.actions.length > 0) query = query.where('action', 'in', [...filter.actions]);
    if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
    if (filter.targetType !== undefined) query = query.where('target_type', '=', filter.targetType);
    if (filter.targetId !== undefined) query = query.where('target_id', '=', filter.targetId);
    if (filter.from !== undefined) query = query.where('occurred_at', '>=', filter.from);
    if (filter.until !== undefined) query = query.where('occurred_at', '<', filter.until);
    const after = page.after;
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('occurred_at', '<', after[0]),
          eb.and([eb('occurred_at', '=', after[0]), eb('event_id', '<', after[1])]),
        ]),
      );
    }
    return query
      .orderBy('occurred_at', 'desc')
      .orderBy('event_id', 'desc')
      .limit(page.limit + 1)
      .execute();
  },
};
