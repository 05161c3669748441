import { microsToIso } from '../../lib/clock.js';
import type { AccountingRecordDto } from './accounting.schemas.js';
import type { AccountingRecordsTable } from './accounting.tables.js';
import { economicLines, type StoredLineItem } from './ledger.js';
import { fromMinor } from './money.js';

/** What a record keeps of the most recent export report. */
export interface LastExportResult {
  status: 'SUCCESS' | 'FAILURE';
  reference_id: string | null;
  deep_link_url: string | null;
  error_message: string | null;
  /** microseconds */
  reported_at: number;
}

const parsed = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T));

/** The API form of a stored record; `singleEntry` drops the balancing lines. */
export function recordRowToRecord(row: AccountingRecordsTable, singleEntry = false): AccountingRecordDto {
  const stored = JSON.parse(row.line_items_json) as StoredLineItem[];
  const lines = singleEntry ? economicLines(row.type, stored) : stored;
  const original = row.original_currency === null ? null : row.original_currency;
  const last = parsed<LastExportResult>(row.last_export_json);
  return {
    id: row.id,
    amount: fromMinor(Number(row.amount_minor), row.currency),
    original_amount: original === null ? null : fromMinor(Number(row.original_amount_minor), original),
    type: row.type,
    source_type: row.source_type,
    source_id: row.source_id,
    review_status: row.review_status,
    posted_at: microsToIso(Number(row.posted_at)),
    erp_posting_date: microsToIso(Number(row.erp_posting_date)),
    due_at: row.due_at === null ? null : microsToIso(Number(row.due_at)),
    updated_at: microsToIso(Number(row.updated_at)),
    invoice_number: row.invoice_number,
    memo: row.memo,
    line_items: lines.map((line) => ({
      id: line.id,
      type: line.type,
      amount: fromMinor(line.amount, row.currency),
      original_amount: line.original_amount === null || original === null ? null : fromMinor(line.original_amount, original),
      memo: line.memo,
      accounting_field_values: line.accounting_field_values,
    })),
    receipts: parsed(row.receipts_json),
    user: parsed(row.user_json),
    vendor: parsed(row.vendor_json),
    version: Number(row.version),
    last_export_result: last === null ? null : { ...last, reported_at: microsToIso(last.reported_at) },
  };
}
