import { sql, type SqlBool } from 'kysely';
import type { Executor } from '../../db/database.js';
import { DETAIL_COLUMNS, filtered, SHOWN_ROW_COLUMNS, withDetails } from './accounting.repository.js';
import type { ShownRecordRow } from './accounting.tables.js';
import type { SourceType } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';
import { pastPrefix } from './search-terms.js';

export type SortColumn = 'updated_at' | 'posted_at' | 'amount_sort';

export interface SearchFilter {
  reviewStatus?: ReviewStatus;
  sourceType?: SourceType;
  /** amount_sort bounds (money.ts sortableAmount) */
  amountGte?: number;
  amountLte?: number;
  postedGte?: number;
  postedLt?: number;
  vendor?: string;
  user?: string;
  hasExportFailure?: boolean;
  /** An export report (of these event types) in [from, to) microseconds. */
  exportReported?: { types: readonly ('EXPORT_SUCCEEDED' | 'EXPORT_FAILED')[]; from: number; to: number };
  uncoded?: boolean;
  /** true: at least one receipt; false: none. */
  hasReceipt?: boolean;
  /** Free text: each word the prefix of one of a record's terms (search-terms.ts), or the amount (amount_sort). */
  text?: { words: string[]; amountSort: number | null };
}

export interface SearchOrder {
  column: SortColumn;
  descending: boolean;
}

/** `text` as a LIKE pattern's literal part (with `escape '\'`). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
// Both sides are folded by the database's lower(): folded by JavaScript's toLowerCase, the text would not match
// the column where the two differ (SQLite's lower() folds ASCII letters only, so "ÉCOLE" did not find "ÉCOLE").
const contains = (column: 'r.vendor_name' | 'r.user_email', text: string) =>
  sql<SqlBool>`lower(${sql.ref(column)}) like lower(${`%${likeLiteral(text)}%`}) escape '\\'`;
// last_export_json is written by JSON.stringify with `status` first (accounting.service.ts).
export const LAST_EXPORT_FAILED = '{"status":"FAILURE"%';
const FAILED = LAST_EXPORT_FAILED;

/**
 * The ids of the account's records the free text finds: those with a term beginning with every word (one range of
 * the terms' primary key a word), and those of the amount (the amount_sort index). Intersections first, the union
 * last: both dialects evaluate it as (w1 ∩ w2 …) ∪ amount.
 */
function textMatches(accountId: string, text: NonNullable<SearchFilter['text']>) {
  const parts = text.words.map(
    (word) =>
      sql`select record_id from accounting_record_terms where account_id = ${accountId} and term >= ${word} and term < ${pastPrefix(word)}`,
  );
  const words = parts.length > 0 ? sql.join(parts, sql` intersect `) : null;
  const amount =
    text.amountSort === null
      ? null
      : sql`select id from accounting_records where account_id = ${accountId} and amount_sort = ${text.amountSort}`;
  if (words && amount) return sql`${words} union ${amount}`;
  return words ?? amount;
}

/**
 * Below this many matches, sorting the matches beats walking the sort index (measured on SQLite, 200,000 records;
 * on PostgreSQL at 300,000: 2,614 matches sorted 52 ms, walked 4.4 ms).
 */
const FEW = 2000;

/** True when the free text matches at most `bound` records (reads at most bound + 1 of them). */
async function matchesAtMost(ex: Executor, accountId: string, text: NonNullable<SearchFilter['text']>, bound: number) {
  const matches = textMatches(accountId, text);
  if (!matches) return true;
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from (select 1 from (${matches}) as m limit ${bound + 1}) as c`.execute(ex);
  return Number(rows[0]?.n ?? 0) <= bound;
}

export const searchRepository = {
  /**
   * A keyset page of the account's records matching every filter, in the given order with ties by id; fetches
   * limit + 1 rows. The sort columns have (account_id, column, id) indexes; the text filters read the account's
   * rows (narrowed first by whatever else is given).
   */
  async page(
    ex: Executor,
    accountId: string,
    f: SearchFilter,
    order: SearchOrder,
    after: { value: number; id: string } | null,
    limit: number,
  ): Promise<(ShownRecordRow & { sort_value: number })[]> {
    let q = withDetails(
      filtered(ex, accountId, { reviewStatus: f.reviewStatus, sourceTypes: f.sourceType ? [f.sourceType] : undefined }),
    ).select([...SHOWN_ROW_COLUMNS, ...DETAIL_COLUMNS, sql<number>`${sql.ref(`r.${order.column}`)}`.as('sort_value')]);
    if (f.amountGte !== undefined) q = q.where('r.amount_sort', '>=', f.amountGte);
    if (f.amountLte !== undefined) q = q.where('r.amount_sort', '<=', f.amountLte);
    if (f.postedGte !== undefined) q = q.where('r.posted_at', '>=', f.postedGte);
    if (f.postedLt !== undefined) q = q.where('r.posted_at', '<', f.postedLt);
    if (f.vendor !== undefined) q = q.where(contains('r.vendor_name', f.vendor));
    if (f.user !== undefined) q = q.where(contains('r.user_email', f.user));
    if (f.hasExportFailure === true) q = q.where('r.last_export_json', 'like', FAILED);
    if (f.hasExportFailure === false) {
      q = q.where((eb) => eb.or([eb('r.last_export_json', 'is', null), eb('r.last_export_json', 'not like', FAILED)]));
    }
    // Free text matching few records: read them and sort them. Matching many: walk the sort index and stop at the
    // page's end, each row tested against the matches kept in a hash — PostgreSQL would otherwise join every match
    // to its record before sorting (a vendor of one record in thirty: 264 ms at 1,000,000 records, 15× this),
    // so there the test is written as an expression it does not turn into a join.
    const few = f.text ? await matchesAtMost(ex, accountId, f.text, FEW) : false;
    if (f.text) {
      const matches = textMatches(accountId, f.text);
      if (!matches) q = q.where(sql<SqlBool>`1 = 0`);
      else if (few || ex.dialect === 'sqlite') q = q.where(sql<SqlBool>`r.id in (${matches})`);
      else q = q.where(sql<SqlBool>`(r.id in (${matches})) is true`);
    }
    // The events' (account_id, type, occurred_at) index: one range a type.
    if (f.exportReported) {
      const { types, from, to } = f.exportReported;
      q = q.where(
        sql<SqlBool>`r.id in (select record_id from accounting_record_events where account_id = ${accountId} and type in (${sql.join(types)}) and occurred_at >= ${from} and occurred_at < ${to})`,
      );
    }
    if (f.uncoded === true) q = q.where('r.uncoded_lines', '>', 0);
    if (f.uncoded === false) q = q.where('r.uncoded_lines', '=', 0);
    // The receipt links (0030), kept with receipts_json: one probe of their primary key a record.
    if (f.hasReceipt !== undefined) {
      const listed = sql<SqlBool>`exists (select 1 from accounting_record_receipts x where x.account_id = r.account_id and x.record_id = r.id)`;
      q = q.where(f.hasReceipt ? listed : sql<SqlBool>`not ${listed}`);
    }
    const column = `r.${order.column}` as const;
    if (after) {
      const beyond = order.descending ? '<' : '>';
      q = q.where((eb) =>
        eb.or([eb(column, beyond, after.value), eb.and([eb(column, '=', after.value), eb('r.id', beyond, after.id)])]),
      );
    }
    const direction = order.descending ? 'desc' : 'asc';
    // With free text matching few records, SQLite (without statistics) would still walk the account's whole sort
    // index and test each row against the matches; ordered by an expression, it reads the matches by primary key
    // and sorts only them (PostgreSQL's planner does so by itself). Matching many, the walk in order stops at the
    // page's end sooner.
    const sortKey = few && ex.dialect === 'sqlite' ? sql`${sql.ref(column)} + 0` : sql.ref(column);
    const rows = await q
      .orderBy(sortKey, direction)
      .orderBy('r.id', direction)
      .limit(limit + 1)
      .execute();
    return rows.map((row) => ({ ...row, sort_value: Number(row.sort_value) }));
  },
};
