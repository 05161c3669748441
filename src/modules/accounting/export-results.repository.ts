import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import { preparedQuery } from '../../speed/prepared.js';
import { chunks, ID_CHUNK } from './accounting.repository.js';
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
 * PostgreSQL: one statement per 500, as each statement is a round trip to the server.
 */
const applyExportResultsBy: ByDialect<
  (ex: Executor, accountId: string, updates: readonly ExportUpdate[]) => Promise<number>
> = {
  async sqlite(ex, accountId, updates) {
    let changed = 0;
    for (const u of updates) {
      const result = await exportOne(ex, {
        accountId,
        id: u.id,
        reviewStatus: u.reviewStatus,
        updatedAt: u.updatedAt,
        lastExportJson: u.lastExportJson,
      });
      changed += Number(result.numAffectedRows ?? 0n);
    }
    return changed;
  },
  async postgres(ex, accountId, updates) {
    let changed = 0;
    for (const chunk of chunks(updates, ID_CHUNK)) {
      const values = sql.join(
        chunk.map((u) => sql`(${u.id}, cast(${u.updatedAt} as bigint), ${u.reviewStatus}, ${u.lastExportJson})`),
      );
      const result = await sql`
        with v(id, updated_at, review_status, last_export_json) as (values ${values})
        update accounting_records
        set review_status = v.review_status, updated_at = v.updated_at, last_export_json = v.last_export_json,
            version = accounting_records.version + 1
        from v
        where accounting_records.account_id = ${accountId} and accounting_records.id = v.id
          and accounting_records.review_status = 'READY_FOR_EXPORT'`.execute(ex);
      changed += Number(result.numAffectedRows ?? 0n);
    }
    return changed;
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
