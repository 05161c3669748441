import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import { preparedQuery } from '../../speed/prepared.js';
import type { ReviewStatus } from './lifecycle.js';

export interface ExportUpdate {
  id: string;
  reviewStatus: ReviewStatus;
  updatedAt: number;
  lastExportJson: string;
}

/** One record's export result, as a SQLite statement compiled once and run per record (applyExportResults). */
const exportOne = preparedQuery<{
  accountId: string;
  id: string;
  reviewStatus: ReviewStatus;
  updatedAt: number;
  lastExportJson: string;
}>()((ex, p) =>
  ex
    .updateTable('accounting_records')
    .set((eb) => ({
      review_status: p('reviewStatus'),
      updated_at: p('updatedAt'),
      last_export_json: p('lastExportJson'),
      version: eb('version', '+', 1),
    }))
    .where('account_id', '=', p('accountId'))
    .where('id', '=', p('id'))
    .where('review_status', '=', 'READY_FOR_EXPORT'),
);

/**
 * SQLite: one compiled statement run per record, each a primary-key probe (in process a statement is a call,
 * not a round trip, and these cost less than one UPDATE ... FROM (VALUES ...) per 500: docs/performance.md).
 * PostgreSQL: one statement for the whole batch, its values as arrays, as each statement is a round trip.
 */
const applyExportResultsBy: ByDialect<
  (ex: Executor, accountId: string, updates: readonly ExportUpdate[]) => Promise<number>
> = {
  sqlite: (ex, accountId, updates) =>
    exportOne.each(
      ex,
      updates.map((u) => ({
        accountId,
        id: u.id,
        reviewStatus: u.reviewStatus,
        updatedAt: u.updatedAt,
        lastExportJson: u.lastExportJson,
      })),
    ),
  async postgres(ex, accountId, updates) {
    // One statement, its values as four arrays (five parameters whatever the batch): one round trip, and no
    // statement of 2000 parameters to build, send and parse.
    const result = await sql`
      update accounting_records
      set review_status = v.review_status, updated_at = v.updated_at, last_export_json = v.last_export_json,
          version = accounting_records.version + 1
      from unnest(${updates.map((u) => u.id)}::text[], ${updates.map((u) => u.updatedAt)}::bigint[],
                  ${updates.map((u) => u.reviewStatus)}::text[], ${updates.map((u) => u.lastExportJson)}::text[])
        as v(id, updated_at, review_status, last_export_json)
      where accounting_records.account_id = ${accountId} and accounting_records.id = v.id
        and accounting_records.review_status = 'READY_FOR_EXPORT'`.execute(ex);
    return Number(result.numAffectedRows ?? 0n);
  },
};

export const exportResultsRepository = {
  /**
   * Applies export results, each record only if still READY_FOR_EXPORT; returns how many records changed so
   * the caller can tell a lost race from success.
   */
  async applyExportResults(ex: Executor, accountId: string, updates: readonly ExportUpdate[]): Promise<number> {
    return applyExportResultsBy[ex.dialect](ex, accountId, updates);
  },
};
