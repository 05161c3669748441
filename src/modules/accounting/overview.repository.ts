import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { DETAIL_COLUMNS, filtered, SHOWN_ROW_COLUMNS, withDetails } from './accounting.repository.js';
import type { ShownRecordRow } from './accounting.tables.js';
import { LAST_EXPORT_FAILED } from './search.repository.js';
import type { ReviewStatus } from './lifecycle.js';

const DAY = 86_400_000_000;

export const overviewRepository = {
  /** The account's record counts by review state and source type, as kept with every change. */
  async counts(ex: Executor, accountId: string) {
    return ex
      .selectFrom('account_record_counts')
      .select(['review_status', 'source_type', 'records'])
      .where('account_id', '=', accountId)
      .where('records', '>', 0)
      .orderBy('review_status')
      .orderBy('source_type')
      .execute();
  },

  /** The `limit` records of one state unchanged the longest (the review-status index, in updated_at order). */
  async unchangedLongest(
    ex: Executor,
    accountId: string,
    status: ReviewStatus,
    limit: number,
  ): Promise<ShownRecordRow[]> {
    return withDetails(filtered(ex, accountId, { reviewStatus: status }))
      .select([...SHOWN_ROW_COLUMNS, ...DETAIL_COLUMNS])
      .orderBy('r.updated_at')
      .orderBy('r.id')
      .limit(limit)
      .execute();
  },

  /** Records whose last export report was a failure and that have not been exported since. */
  async failedExports(ex: Executor, accountId: string): Promise<number> {
    const row = await ex
      .selectFrom('accounting_records as r')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('r.account_id', '=', accountId)
      // Only a success leads to EXPORTED (and replaces the failure): the other states, which the review-status
      // index narrows to, hold every failed one.
      .where('r.review_status', 'in', ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT'])
      .where('r.last_export_json', 'like', LAST_EXPORT_FAILED)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /**
   * Records with an export report per UTC day since `since` (microseconds, a day's start), successes and failures
   * apart: a record reported twice the same day counts once, as the queue's exported_on filter finds it.
   */
  async exportsPerDay(ex: Executor, accountId: string, since: number) {
    const rows = await ex
      .selectFrom('accounting_record_events')
      .select([
        sql<number | string>`occurred_at / ${sql.lit(DAY)}`.as('day'),
        'type',
        (eb) => eb.fn.count<number | string>('record_id').distinct().as('n'),
      ])
      .where('account_id', '=', accountId)
      .where('type', 'in', ['EXPORT_SUCCEEDED', 'EXPORT_FAILED'])
      .where('occurred_at', '>=', since)
      .groupBy([sql`occurred_at / ${sql.lit(DAY)}`, 'type'])
      .execute();
    return rows.map((r) => ({ day: Number(r.day), type: r.type, n: Number(r.n) }));
  },
};
