import type { RecordType, ReviewStatus, SourceType } from './ledger.js';

/**
 * One row per record. Line items, user, vendor, receipts and the last export result are JSON text columns of
 * the row, so a page of records is one indexed range read with no per-record joins. Money is integer minor
 * units of `currency`; times are microseconds since the epoch.
 */
export interface AccountingRecordsTable {
  account_id: string;
  id: string;
  type: RecordType;
  source_type: SourceType;
  source_id: string | null;
  review_status: ReviewStatus;
  currency: string;
  amount_minor: number;
  original_currency: string | null;
  original_amount_minor: number | null;
  posted_at: number;
  erp_posting_date: number;
  due_at: number | null;
  invoice_number: string | null;
  memo: string | null;
  /** StoredLineItem[] */
  line_items_json: string;
  user_json: string | null;
  vendor_json: string | null;
  receipts_json: string | null;
  /** LastExportResult of the most recent export report, null until the first. */
  last_export_json: string | null;
  version: number;
  created_at: number;
  updated_at: number;
}

/** The per-account record clock: the greatest updated_at handed out (see record-clock.ts). */
export interface AccountRecordClocksTable {
  account_id: string;
  last_updated_at: number;
}

/** How many records of the account are in each (source_type, review_status). */
export interface AccountRecordCountsTable {
  account_id: string;
  source_type: SourceType;
  review_status: ReviewStatus;
  records: number;
}

export interface AccountingTables {
  account_record_counts: AccountRecordCountsTable;
  accounting_records: AccountingRecordsTable;
  account_record_clocks: AccountRecordClocksTable;
}
