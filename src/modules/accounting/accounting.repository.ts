import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database, Executor } from '../../db/database.js';
import type { AccountingRecordsTable, ShownRecordRow, StoredRecord } from './accounting.tables.js';
import type { SourceType } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';
import { receiptIdsOf } from './record-receipts.repository.js';
import { termsOf } from './search-terms.js';

export interface RecordFilter {
  ids?: readonly string[];
  reviewStatus?: ReviewStatus;
  sourceTypes?: readonly SourceType[];
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

export interface RecordState {
  id: string;
  review_status: ReviewStatus;
  source_type: SourceType;
  version: number;
}

/** Changes of the per-(source_type, review_status) record counts of one transaction. */
export class CountDeltas {
  readonly #deltas = new Map<string, { source_type: SourceType; review_status: ReviewStatus; records: number }>();
  add(sourceType: SourceType, reviewStatus: ReviewStatus, n: number): this {
    const key = `${sourceType} ${reviewStatus}`;
    const delta = this.#deltas.get(key) ?? { source_type: sourceType, review_status: reviewStatus, records: 0 };
    delta.records += n;
    this.#deltas.set(key, delta);
    return this;
  }
  entries(): { source_type: SourceType; review_status: ReviewStatus; records: number }[] {
    return [...this.#deltas.values()].filter((d) => d.records !== 0);
  }
}

const INSERT_CHUNK = 1000; // 20 columns × 1000 rows stays under both dialects' bound-parameter limits (32766, 65535)
export const ID_CHUNK = 500;
const TERM_CHUNK = 5000; // 3 columns × 5000 rows: under SQLite's 32766 bound parameters

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function filtered(
  ex: Executor,
  accountId: string,
  f: RecordFilter,
): SelectQueryBuilder<Database & { r: AccountingRecordsTable }, 'r', object> {
  let q = ex.selectFrom('accounting_records as r').where('r.account_id', '=', accountId);
  if (f.ids) q = q.where('r.id', 'in', f.ids.length > 0 ? f.ids : ['']);
  if (f.reviewStatus) q = q.where('r.review_status', '=', f.reviewStatus);
  if (f.sourceTypes) {
    q =
      f.sourceTypes.length === 1
        ? q.where('r.source_type', '=', f.sourceTypes[0]!)
        : q.where('r.source_type', 'in', f.sourceTypes);
  }
  if (f.gt !== undefined) q = q.where('r.updated_at', '>', f.gt);
  if (f.gte !== undefined) q = q.where('r.updated_at', '>=', f.gte);
  if (f.lt !== undefined) q = q.where('r.updated_at', '<', f.lt);
  if (f.lte !== undefined) q = q.where('r.updated_at', '<=', f.lte);
  return q;
}

/** Each record with its details: one primary-key probe per record. */
export function withDetails(q: ReturnType<typeof filtered>) {
  return q.innerJoin('accounting_record_details as d', (j) =>
    j.onRef('d.account_id', '=', 'r.account_id').onRef('d.id', '=', 'r.id'),
  );
}

export const SHOWN_ROW_COLUMNS = [
  'r.id',
  'r.type',
  'r.source_type',
  'r.source_id',
  'r.review_status',
  'r.currency',
  'r.amount_minor',
  'r.original_currency',
  'r.original_amount_minor',
  'r.posted_at',
  'r.erp_posting_date',
  'r.due_at',
  'r.invoice_number',
  'r.memo',
  'r.last_export_json',
  'r.version',
  'r.updated_at',
] as const;
export const DETAIL_COLUMNS = [
  'd.line_items_json',
  'd.user_json',
  'd.vendor_json',
  'd.receipts_json',
  'd.status',
  'd.billing_currency',
  'd.billing_amount_minor',
  'd.merchant_category_code',
] as const;

export const accountingRepository = {
  /** Inserts records with their details (in the caller's transaction). */
  async insertMany(ex: Executor, records: readonly StoredRecord[]): Promise<void> {
    for (const chunk of chunks(records, INSERT_CHUNK)) {
      const rows: AccountingRecordsTable[] = [];
      const details: Database['accounting_record_details'][] = [];
      for (const {
        line_items_json,
        user_json,
        vendor_json,
        receipts_json,
        status,
        billing_currency,
        billing_amount_minor,
        merchant_category_code,
        ...row
      } of chunk) {
        rows.push(row);
        details.push({
          account_id: row.account_id,
          id: row.id,
          line_items_json,
          user_json,
          vendor_json,
          receipts_json,
          status,
          billing_currency,
          billing_amount_minor,
          merchant_category_code,
        });
      }
      await ex.insertInto('accounting_records').values(rows).execute();
      await ex.insertInto('accounting_record_details').values(details).execute();
      const terms = rows.flatMap((r) =>
        termsOf(r).map((term) => ({ account_id: r.account_id, term, record_id: r.id })),
      );
      for (const part of chunks(terms, TERM_CHUNK))
        await ex.insertInto('accounting_record_terms').values(part).execute();
      const links = details.flatMap((d) =>
        receiptIdsOf(d.receipts_json).map((receipt_id) => ({ account_id: d.account_id, record_id: d.id, receipt_id })),
      );
      for (const part of chunks(links, TERM_CHUNK))
        await ex.insertInto('accounting_record_receipts').values(part).execute();
    }
  },

  async find(ex: Executor, accountId: string, id: string): Promise<StoredRecord | undefined> {
    return withDetails(filtered(ex, accountId, {}))
      .selectAll('r')
      .select(DETAIL_COLUMNS)
      .where('r.id', '=', id)
      .executeTakeFirst();
  },

  /**
   * The review state of each given record that the account has. Written as a join with the ids as VALUES, so
   * that each id is one primary-key probe: as `id in (...)`, SQLite without statistics preferred to scan the
   * account's whole range of the review-status index (it covers these columns).
   */
  async statesOf(ex: Executor, accountId: string, ids: readonly string[]): Promise<RecordState[]> {
    if (ex.dialect === 'postgres') {
      // One statement, the ids as one array: each a probe of the primary key, one round trip for the batch.
      const result = await sql<RecordState>`
        select r.id, r.review_status, r.source_type, r.version
        from accounting_records r
        where r.account_id = ${accountId} and r.id = any(${[...ids]}::text[])`.execute(ex);
      return result.rows.map((row) => ({ ...row, version: Number(row.version) }));
    }
    const out: RecordState[] = [];
    for (const chunk of chunks(ids, ID_CHUNK)) {
      const result = await sql<RecordState>`
        with v(id) as (values ${sql.join(chunk.map((id) => sql`(${id})`))})
        select r.id, r.review_status, r.source_type, r.version
        from v join accounting_records r on r.account_id = ${accountId} and r.id = v.id`.execute(ex);
      out.push(...result.rows.map((row) => ({ ...row, version: Number(row.version) })));
    }
    return out;
  },

  /** A keyset page in (updated_at, id) order; fetches limit + 1 rows. */
  async page(
    ex: Executor,
    accountId: string,
    filter: RecordFilter,
    position: { updatedAt: number; id: string } | null,
    limit: number,
  ): Promise<ShownRecordRow[]> {
    // The answer's columns only: building the row objects of a 500-record page is a large part of its cost.
    // Joining the details measured no slower than reading them from a wide row.
    let q = withDetails(filtered(ex, accountId, filter)).select([...SHOWN_ROW_COLUMNS, ...DETAIL_COLUMNS]);
    // updated_at is unique within an account (the record clock; unique index), so "after (updated_at, id)" is
    // "updated_at > x": one index range, where the OR form of a two-column keyset defeats SQLite's planner.
    if (position) q = q.where('r.updated_at', '>', position.updatedAt);
    return q
      .orderBy('r.updated_at')
      .orderBy('r.id')
      .limit(limit + 1)
      .execute();
  },

  /**
   * total_count: from the kept counts when the filter is only review_status / source_type (a full poll asks on
   * every page), else count(*) over the index range.
   */
  async count(ex: Executor, accountId: string, filter: RecordFilter): Promise<number> {
    const ranged = [filter.gt, filter.gte, filter.lt, filter.lte].some((b) => b !== undefined);
    if (!filter.ids && !ranged) {
      let q = ex
        .selectFrom('account_record_counts')
        .select((eb) => eb.fn.sum<number | string | null>('records').as('n'))
        .where('account_id', '=', accountId);
      if (filter.reviewStatus) q = q.where('review_status', '=', filter.reviewStatus);
      if (filter.sourceTypes) q = q.where('source_type', 'in', filter.sourceTypes);
      return Number((await q.executeTakeFirst())?.n ?? 0);
    }
    const row = await filtered(ex, accountId, filter)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /**
   * Deletes every record of the account with its details, receipt links, history, counts, required coding, review settings and receipt policy (a sandbox
   * reset). The record clock stays, so that updated_at keeps growing past what pollers have seen.
   */
  async purgeAccount(ex: Executor, accountId: string): Promise<void> {
    for (const table of [
      'accounting_record_events',
      'accounting_record_terms',
      'accounting_record_receipts',
      'accounting_record_details',
      'accounting_records',
      'account_record_counts',
      'account_required_fields',
      'account_review_settings',
      'account_receipt_policies',
    ] as const) {
      await ex.deleteFrom(table).where('account_id', '=', accountId).execute();
    }
  },

  /** Applies count changes; runs in the record-writing transaction, under the account's clock lock. */
  async adjustCounts(ex: Executor, accountId: string, deltas: CountDeltas): Promise<void> {
    const rows = deltas.entries().map((d) => ({ account_id: accountId, ...d }));
    if (rows.length === 0) return;
    await ex
      .insertInto('account_record_counts')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'source_type', 'review_status'])
          .doUpdateSet({ records: sql<number>`account_record_counts.records + excluded.records` }),
      )
      .execute();
  },
};
