import type { Executor } from '../../db/database.js';
import { DETAIL_COLUMNS, filtered, withDetails } from './accounting.repository.js';
import type { StoredRecord } from './accounting.tables.js';
import { EDITABLE } from './lifecycle.js';

export const ruleCodingRepository = {
  /**
   * A page of the account's records under review (PREPARE, REVIEW) with their details, in creation order (ids sort
   * so) after `afterId`, among `ids` when given.
   */
  async editablePage(
    ex: Executor,
    accountId: string,
    afterId: string,
    limit: number,
    ids: readonly string[] | null,
  ): Promise<StoredRecord[]> {
    let q = withDetails(filtered(ex, accountId, ids ? { ids } : {}))
      .selectAll('r')
      .select(DETAIL_COLUMNS)
      .where('r.review_status', 'in', EDITABLE)
      .where('r.id', '>', afterId);
    q = q.orderBy('r.id').limit(limit);
    return q.execute();
  },
};
