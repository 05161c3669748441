import type { Executor } from '../../db/database.js';
import type { AccountingRecordEventsTable } from './accounting.tables.js';

/** 9 columns × 500 rows: far below both dialects' bound-parameter limits. */
const INSERT_CHUNK = 500;

export const historyRepository = {
  /** Writes the events, in the caller's (the change's) transaction. */
  async insertMany(ex: Executor, events: readonly AccountingRecordEventsTable[]): Promise<void> {
    for (let i = 0; i < events.length; i += INSERT_CHUNK) {
      await ex
        .insertInto('accounting_record_events')
        .values(events.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  },

  /** A record's events after `afterVersion`, in version order; fetches limit + 1. */
  async page(
    ex: Executor,
    accountId: string,
    recordId: string,
    afterVersion: number,
    limit: number,
  ): Promise<AccountingRecordEventsTable[]> {
    return ex
      .selectFrom('accounting_record_events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('record_id', '=', recordId)
      .where('version', '>', afterVersion)
      .orderBy('version')
      .limit(limit + 1)
      .execute();
  },
};
