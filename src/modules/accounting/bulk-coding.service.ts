import type { Executor } from '../../db/database.js';
import { underSavepoint } from '../../db/savepoint.js';
import { errors, isAppError } from '../../errors.js';
import type { Caller } from '../auth/auth.service.js';
import type { BulkCodingInput, BulkCodingItemResult } from './bulk-coding.schemas.js';
import { codingService } from './coding.service.js';
import { recordClock } from './record-clock.repository.js';

/**
 * Coding many records in one request (the console's coding grid): each item is one coding of one record, through
 * the one coding path (`codingService.codeLines`: the same checks, version, history), under a savepoint of the
 * request's transaction. A record refused (a business error: stale version, not editable, invalid coding or lines,
 * not found) is undone alone and answered on its item; the others are saved. A failure (5xx) fails the request.
 */
export const bulkCodingService = {
  async codeMany(ex: Executor, caller: Caller, input: BulkCodingInput): Promise<{ items: BulkCodingItemResult[] }> {
    const seen = new Set<string>();
    const twice = input.items.flatMap((item, i) => {
      const repeated = seen.has(item.record_id);
      seen.add(item.record_id);
      return repeated
        ? [{ path: `/items/${i}/record_id`, message: `names record ${item.record_id} a second time` }]
        : [];
    });
    if (twice.length > 0) throw errors.invalidRequest(twice);
    // The record clock's lock once for the whole request, outside the items' savepoints (each coding takes it
    // again, which its transaction already holds): the account's other writers wait until every item is done.
    await recordClock.lock(ex, caller.accountId);
    const items: BulkCodingItemResult[] = [];
    for (const { record_id, version, lines } of input.items) {
      try {
        const coded = await underSavepoint(ex, 'bulk_coding_item', () =>
          codingService.codeLines(ex, caller, record_id, { version, lines }),
        );
        items.push({ record_id, status: 'SAVED', record: coded.record });
      } catch (error) {
        if (!isAppError(error) || error.status >= 500) throw error;
        items.push({
          record_id,
          status: 'REFUSED',
          error: { error_code: error.code, message: error.message, details: error.details },
        });
      }
    }
    return { items };
  },
};
