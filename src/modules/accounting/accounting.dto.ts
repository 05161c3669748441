import { microsToIso } from '../../lib/clock.js';
import type { AccountingRecordDto } from './accounting.schemas.js';
import type { ShownRecordRow } from './accounting.repository.js';
import { economicLines, type LineItem } from './ledger.js';
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
export function recordRowToRecord(row: ShownRecordRow, singleEntry = false): AccountingRecordDto {
  const stored = JSON.parse(row.line_items_json) as LineItem[];
  const original = row.original_currency;
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
    line_items: singleEntry ? economicLines(row.type, stored) : stored,
    receipts: parsed(row.receipts_json),
    user: parsed(row.user_json),
    vendor: parsed(row.vendor_json),
    version: Number(row.version),
    last_export_result: last === null ? null : { ...last, reported_at: microsToIso(last.reported_at) },
  };
}

const str = (text: string): string => JSON.stringify(text);
const strOrNull = (text: string | null): string => (text === null ? 'null' : JSON.stringify(text));
const timeOrNull = (micros: number | string | null): string =>
  micros === null ? 'null' : `"${microsToIso(Number(micros))}"`;
const money = (minor: number, currency: string): string => {
  const m = fromMinor(minor, currency);
  return `{"amount":${m.amount},"currency":${str(currency)}}`;
};

/**
 * `JSON.stringify(recordRowToRecord(row, singleEntry))`, written directly: a page of 500 records spent most of
 * its time parsing, building and re-serializing objects. Line items, receipts, user and vendor are spliced in
 * as stored: they were written by JSON.stringify in the answer's form, and JSON.stringify(JSON.parse(text)) is
 * text. A property test holds the two to the same bytes.
 */
export function recordJson(row: ShownRecordRow, singleEntry = false): string {
  const original = row.original_currency;
  const lines = singleEntry
    ? JSON.stringify(economicLines(row.type, JSON.parse(row.line_items_json) as LineItem[]))
    : row.line_items_json;
  const last = parsed<LastExportResult>(row.last_export_json);
  return (
    `{"id":${str(row.id)},"amount":${money(Number(row.amount_minor), row.currency)},"original_amount":${
      original === null ? 'null' : money(Number(row.original_amount_minor), original)
    },"type":${str(row.type)},"source_type":${str(row.source_type)},"source_id":${strOrNull(row.source_id)},"review_status":${str(row.review_status)}` +
    `,"posted_at":${timeOrNull(row.posted_at)},"erp_posting_date":${timeOrNull(row.erp_posting_date)},"due_at":${timeOrNull(row.due_at)},"updated_at":${timeOrNull(row.updated_at)}` +
    `,"invoice_number":${strOrNull(row.invoice_number)},"memo":${strOrNull(row.memo)},"line_items":${lines}` +
    `,"receipts":${row.receipts_json ?? 'null'},"user":${row.user_json ?? 'null'},"vendor":${row.vendor_json ?? 'null'},"version":${Number(row.version)}` +
    `,"last_export_result":${last === null ? 'null' : JSON.stringify({ ...last, reported_at: microsToIso(last.reported_at) })}}`
  );
}
