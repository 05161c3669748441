import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { ID_CHUNK, chunks, filtered, withDetails } from './accounting.repository.js';
import type { RecordType } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';

/** The states whose coding a person has approved: what suggestions learn from. */
export const APPROVED: readonly ReviewStatus[] = ['READY_FOR_EXPORT', 'EXPORTED'];

/** What a suggestion reads of a record, the one it suggests for or one of its history. */
export interface SuggestionRow {
  id: string;
  type: RecordType;
  review_status: ReviewStatus;
  version: number;
  vendor_name: string | null;
  user_email: string | null;
  memo: string | null;
  currency: string;
  amount_minor: number;
  line_items_json: string;
}

/** The history a suggestion reads: records of the same vendor, of the same user, of the same type. */
export type HistoryKey =
  | { signal: 'VENDOR'; vendorName: string }
  | { signal: 'USER'; userEmail: string }
  | { signal: 'RECORD_TYPE'; type: RecordType };

const COLUMNS = [
  'r.id',
  'r.type',
  'r.review_status',
  'r.version',
  'r.vendor_name',
  'r.user_email',
  'r.memo',
  'r.currency',
  'r.amount_minor',
  'd.line_items_json',
] as const;

export const suggestionHistoryRepository = {
  /** The account's records among `ids` (those it has). */
  async records(ex: Executor, accountId: string, ids: readonly string[]): Promise<SuggestionRow[]> {
    const out: SuggestionRow[] = [];
    for (const chunk of chunks(ids, ID_CHUNK)) {
      out.push(
        ...(await withDetails(filtered(ex, accountId, { ids: chunk }))
          .select(COLUMNS)
          .execute()),
      );
    }
    return out;
  },

  /**
   * The last `limit` approved records (READY_FOR_EXPORT, EXPORTED) of a key, newest posted first (then by id,
   * so that ties of posted_at are ordered too). Each walks one index of migration 0022 backwards from its key.
   */
  async history(ex: Executor, accountId: string, key: HistoryKey, limit: number): Promise<SuggestionRow[]> {
    let q = withDetails(filtered(ex, accountId, {})).select(COLUMNS);
    if (key.signal === 'VENDOR') q = q.where(sql`lower(r.vendor_name)`, '=', sql`lower(${key.vendorName})`);
    else if (key.signal === 'USER') q = q.where(sql`lower(r.user_email)`, '=', sql`lower(${key.userEmail})`);
    else q = q.where('r.type', '=', key.type);
    return q
      .where('r.review_status', 'in', APPROVED)
      .orderBy('r.posted_at', 'desc')
      .orderBy('r.id', 'desc')
      .limit(limit)
      .execute();
  },
};
