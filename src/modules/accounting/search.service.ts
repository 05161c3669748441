import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { isoToMicros } from '../../lib/clock.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { pageOf } from '../../lib/pagination.js';
import type { AuthContext } from '../auth/auth.service.js';
import { AccountingRecordShape } from './accounting.schemas.js';
import type { RecordSearchInput } from './search.schemas.js';
import { queryAmount, queryWords } from './search-terms.js';
import { searchRepository, type SearchFilter, type SearchOrder, type SortColumn } from './search.repository.js';
import { prewrittenPage, type PrewrittenJson } from '../../lib/prewritten.js';

const SORT_COLUMNS: Record<string, SortColumn> = {
  updated_at: 'updated_at',
  posted_at: 'posted_at',
  amount: 'amount_sort',
};

/** Above every amount_sort a record may have (ingestion refuses amounts whose amount_sort is not a safe integer). */
const BEYOND_SORTABLE = 2 ** 53;

/**
 * Major units → the amount_sort scale (ten-thousandths), rounded toward the bound's side. A product that is an
 * integer but for binary floating point (0.07 × 10,000 = 700.0000000000001, 0.57 × 10,000 = 5699.999999999999) is
 * that integer: rounded up or down it would leave out the records the bound names. Clamped to the column's range,
 * which PostgreSQL's bigint parameters require (amount[gte]=1e15 would otherwise fail the query).
 */
const scaled = (amount: number, round: (x: number) => number) => {
  const product = amount * 10_000;
  const nearest = Math.round(product);
  const exact = Math.abs(product - nearest) <= Math.abs(product) * Number.EPSILON * 2;
  return Math.min(exact ? nearest : round(product), BEYOND_SORTABLE);
};

/** The free text as the search reads it: its words, and the amount it names if it is a number. */
function freeText(q: string): NonNullable<SearchFilter['text']> {
  const amount = queryAmount(q);
  return { words: queryWords(q), amountSort: amount === null ? null : scaled(amount, Math.round) };
}

/** The rules between the search's members that its schema cannot say; `at` is where they are (a query, a body). */
export function checkSearchBounds(
  q: Pick<RecordSearchInput, 'amount[gte]' | 'amount[lte]' | 'exported_on' | 'export_outcome'>,
  at: string,
): void {
  if (q['amount[gte]'] !== undefined && q['amount[lte]'] !== undefined && q['amount[gte]'] > q['amount[lte]']) {
    throw errors.invalidField(`${at}/amount[lte]`, 'must not be less than amount[gte]');
  }
  if (q.export_outcome !== undefined && q.exported_on === undefined) {
    throw errors.invalidField(`${at}/export_outcome`, 'is given with exported_on (the day of the report)');
  }
}

const DAY_MICROS = 86_400_000_000;

/** The UTC day `day` (YYYY-MM-DD) as the span of export reports of `outcome` (either when absent). */
function exportedOn(
  day: string,
  outcome: 'SUCCESS' | 'FAILURE' | undefined,
): NonNullable<SearchFilter['exportReported']> {
  const from = isoToMicros(`${day}T00:00:00Z`)!;
  const types =
    outcome === undefined
      ? (['EXPORT_SUCCEEDED', 'EXPORT_FAILED'] as const)
      : outcome === 'SUCCESS'
        ? (['EXPORT_SUCCEEDED'] as const)
        : (['EXPORT_FAILED'] as const);
  return { types, from, to: from + DAY_MICROS };
}

/**
 * The review queue's search (internal API; the public /v3 query stays as the spec has it): records of the
 * account matching every filter, sorted, a keyset page at a time. review_status matches records of every source
 * type here (the public query's "card and reimbursement only" rule is the contract's, not the queue's).
 */
export const searchService = {
  async search(ex: Executor, auth: AuthContext, q: RecordSearchInput): Promise<PrewrittenJson> {
    checkSearchBounds(q, '/query');
    const bound = (text: string | undefined) => (text === undefined ? undefined : isoToMicros(text)!);
    const filter: SearchFilter = {
      reviewStatus: q.review_status,
      sourceType: q.source_type,
      amountGte: q['amount[gte]'] === undefined ? undefined : scaled(q['amount[gte]'], Math.ceil),
      amountLte: q['amount[lte]'] === undefined ? undefined : scaled(q['amount[lte]'], Math.floor),
      postedGte: bound(q['posted_at[gte]']),
      postedLt: bound(q['posted_at[lt]']),
      vendor: q.vendor,
      user: q.user,
      hasExportFailure: q.has_export_failure,
      ...(q.exported_on === undefined ? {} : { exportReported: exportedOn(q.exported_on, q.export_outcome) }),
      uncoded: q.uncoded,
      hasReceipt: q.receipt === undefined ? undefined : q.receipt === 'present',
      ...(q.q === undefined ? {} : { text: freeText(q.q) }),
    };
    const sort = q.sort ?? 'updated_at';
    const order: SearchOrder = { column: SORT_COLUMNS[sort.replace('-', '')]!, descending: sort.startsWith('-') };
    const binding = { ...filter, sort };
    let after: { value: number; id: string } | null = null;
    if (q.cursor) {
      const [value, id] = openCursor(auth.cursorKey, 'record_search', binding, q.cursor);
      if (typeof value !== 'number' || typeof id !== 'string') throw errors.invalidCursor();
      after = { value, id };
    }
    const limit = q.limit ?? 100;
    const page = pageOf(await searchRepository.page(ex, auth.accountId, filter, order, after, limit), limit);
    const last = page.items.at(-1);
    const next =
      page.hasMore && last ? sealCursor(auth.cursorKey, 'record_search', binding, [last.sort_value, last.id]) : null;
    const ctx = { singleEntry: q.single_entry ?? false, accountId: auth.accountId };
    const items = page.items.map((row) => AccountingRecordShape.toJson(row, ctx)).join(',');
    return prewrittenPage(`[${items}]`, { has_next_page: page.hasMore, next_cursor: next });
  },
};
