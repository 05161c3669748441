import type { Executor } from '../../db/database.js';
import type { ShownRecordRow } from './accounting.tables.js';
import { chunks, DETAIL_COLUMNS, filtered, ID_CHUNK, SHOWN_ROW_COLUMNS, withDetails } from './accounting.repository.js';

/** The records a file export reads, with their details, in the order of the file: ERP posting date, then id. */
export const exportSelectionRepository = {
  async byIds(ex: Executor, accountId: string, ids: readonly string[]): Promise<ShownRecordRow[]> {
    const rows: ShownRecordRow[] = [];
    for (const chunk of chunks(ids, ID_CHUNK)) {
      rows.push(
        ...(await withDetails(filtered(ex, accountId, { ids: chunk }))
          .select([...SHOWN_ROW_COLUMNS, ...DETAIL_COLUMNS])
          .execute()),
      );
    }
    return rows;
  },

  /** READY_FOR_EXPORT records whose ERP posting date is in [from, to) (microseconds; null: unbounded). */
  async ready(ex: Executor, accountId: string, from: number | null, to: number | null): Promise<ShownRecordRow[]> {
    let q = withDetails(filtered(ex, accountId, { reviewStatus: 'READY_FOR_EXPORT' })).select([
      ...SHOWN_ROW_COLUMNS,
      ...DETAIL_COLUMNS,
    ]);
    if (from !== null) q = q.where('r.erp_posting_date', '>=', from);
    if (to !== null) q = q.where('r.erp_posting_date', '<', to);
    return q.orderBy('r.erp_posting_date').orderBy('r.id').execute();
  },
};
