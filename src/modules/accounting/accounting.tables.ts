import type { RecordType, SourceType } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';
import type { SourceStatus } from './source-status.js';

/**
 * One row per record: what changes often (review status, version, updated_at, the last export result) and what
 * queries filter and sort on. Its details (line items, user, vendor, receipts: written at ingestion, the line
 * items changed again only by coding) are in accounting_record_details: an export report rewrites small rows
 * instead of large ones (see docs/performance.md). Money is integer minor units of `currency`; times are
 * microseconds since the epoch.
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
  /** LastExportResult of the most recent export report, null until the first. */
  last_export_json: string | null;
  version: number;
  created_at: number;
  updated_at: number;
  /** The amount in ten-thousandths of its currency's major unit: comparable across currencies (money.ts). */
  amount_sort: number;
  /** How many economic lines carry no coding at all. */
  uncoded_lines: number;
  /** From the details, for the review queue's text search. */
  vendor_name: string | null;
  user_email: string | null;
}

/**
 * A record's details, one row per record (same key): what the source system gave at ingestion, which never
 * changes (JSON text in the answer's form), and the line items, which coding, split and merge rewrite.
 */
export interface AccountingRecordDetailsTable {
  account_id: string;
  id: string;
  /** LineItem[] */
  line_items_json: string;
  /** The user as given, with the record's account_id last. */
  user_json: string | null;
  vendor_json: string | null;
  receipts_json: string | null;
  /** The state of the source activity at ingestion (source-status.ts). */
  status: SourceStatus;
  /** What the billing currency was charged, in its minor units; both null when that is the amount itself. */
  billing_currency: string | null;
  billing_amount_minor: number | null;
  /** A card record's merchant category code (ISO 18245) as the card system sent it; null otherwise. Not answered. */
  merchant_category_code: string | null;
}

/** A whole record as stored: its row and its details. */
export type StoredRecord = AccountingRecordsTable & Omit<AccountingRecordDetailsTable, 'account_id' | 'id'>;

/** What an answer shows of a record: every column but the account, created_at and the review queue's own. */
export type ShownRecordRow = Omit<
  StoredRecord,
  | 'account_id'
  | 'created_at'
  | 'amount_sort'
  | 'uncoded_lines'
  | 'vendor_name'
  | 'user_email'
  | 'merchant_category_code'
>;

/** One change of a record, with the version it produced (history.repository.ts). */
export interface AccountingRecordEventsTable {
  account_id: string;
  record_id: string;
  version: number;
  event_id: string;
  type: string;
  actor_type: string;
  actor_id: string;
  occurred_at: number;
  /** What changed, in the event type's form (docs/accounting.md, "History"). */
  changes_json: string;
}

/** A word a record is found by in the review queue's free-text search (search-terms.ts); written with the record. */
export interface AccountingRecordTermsTable {
  account_id: string;
  term: string;
  record_id: string;
}

/**
 * A receipt a record lists (migration 0030), svc's or ingested with its own links: kept with the record's
 * receipts_json by every write of it, so that "has it a receipt" and "which record lists this receipt" read an index.
 */
export interface AccountingRecordReceiptsTable {
  account_id: string;
  record_id: string;
  receipt_id: string;
}

/** A field every economic line must be coded with before its record may go to READY_FOR_EXPORT. */
export interface AccountRequiredFieldsTable {
  account_id: string;
  field_id: string;
  created_at: number;
}

/** An account's review settings (docs/coding-rules.md, "Auto-submit"); no row: the defaults. */
export interface AccountReviewSettingsTable {
  account_id: string;
  /** 1: records ingested in PREPARE that carry the required coding go on to REVIEW at ingestion */
  auto_submit: number;
  updated_at: number;
}

/** An account's receipt policy (docs/receipts.md, "Receipt policy"); no row: no receipt is required. */
export interface AccountReceiptPoliciesTable {
  account_id: string;
  /** ReceiptRule[] as answered, by currency */
  rules_json: string;
  updated_at: number;
}

/** What a record keeps of the most recent export report (last_export_json). */
export interface LastExportResult {
  status: 'SUCCESS' | 'FAILURE';
  reference_id: string | null;
  deep_link_url: string | null;
  error_message: string | null;
  /** microseconds */
  reported_at: number;
}

/** The per-account record clock: the greatest updated_at handed out (see record-clock.repository.ts). */
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

// The module's tables, joined into the service's Database (db/database.ts) by declaration merging: db/ imports
// no module, each module plugs its own tables in.
declare module '../../db/database.js' {
  interface Database {
    account_record_counts: AccountRecordCountsTable;
    accounting_records: AccountingRecordsTable;
    accounting_record_details: AccountingRecordDetailsTable;
    account_record_clocks: AccountRecordClocksTable;
    accounting_record_events: AccountingRecordEventsTable;
    accounting_record_terms: AccountingRecordTermsTable;
    accounting_record_receipts: AccountingRecordReceiptsTable;
    account_required_fields: AccountRequiredFieldsTable;
    account_review_settings: AccountReviewSettingsTable;
    account_receipt_policies: AccountReceiptPoliciesTable;
  }
}
