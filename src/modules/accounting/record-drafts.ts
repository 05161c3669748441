import type { LineDecision } from '../coding-rules/coding-rules.service.js';
import type { LastExportResult, StoredRecord } from './accounting.tables.js';
import { exportReported, type RecordEvent } from './history.js';
import type { EconomicLine, RecordType } from './ledger.js';
import type { ReviewStatus } from './lifecycle.js';
import type { SourceStatus } from './source-status.js';

/** A record to write, as the domain knows it: money in minor units, times in microseconds, codings resolved. */
export interface RecordDraft {
  type: RecordType;
  reviewStatus: ReviewStatus;
  sourceId: string | null;
  currency: string;
  amountMinor: number;
  originalCurrency: string | null;
  originalAmountMinor: number | null;
  /** Both null when the billing amount is the amount itself (no conversion). */
  billingCurrency: string | null;
  billingAmountMinor: number | null;
  /** The state of the source activity (source-status.ts). */
  status: SourceStatus;
  postedAt: number;
  erpPostingDate: number;
  dueAt: number | null;
  invoiceNumber: string | null;
  memo: string | null;
  lines: readonly EconomicLine[];
  user: { readonly email?: unknown } | null;
  vendor: { readonly name?: unknown } | null;
  receipts: readonly object[] | null;
  /** A card record's merchant category code (ISO 18245); absent or null when not sent. */
  merchantCategoryCode?: string | null;
  /**
   * An export already reported (an imported history): kept as the record's last export and as an EXPORT_SUCCEEDED
   * or EXPORT_FAILED event at the next version (what the overview's exports per day count), announcing nothing.
   */
  lastExport: Omit<LastExportResult, 'reported_at'> | null;
  /** When that export was reported (microseconds); never after the import's own time, which is the default. */
  lastExportAt?: number;
  version: number;
  /** What coding rules set on its lines at ingestion (rule-coding.ts), named in its INGESTED event. */
  ruleDecisions?: readonly LineDecision[];
  /**
   * Moved on from PREPARE to REVIEW by the account's auto-submit (review-settings.ts): written in REVIEW at the
   * next version, its history an INGESTED event in PREPARE and a MOVED event saying so, both at its updated_at.
   */
  autoSubmitted?: boolean;
}

/** When an imported export was reported: the draft's time, never after the import's own. */
export const reportedAt = (d: RecordDraft, time: number) => Math.min(d.lastExportAt ?? time, time);

/** The event of an export an imported record carries: history, not a change happening now (announces nothing). */
export function importedExport(
  row: StoredRecord,
  d: RecordDraft,
  lastExport: NonNullable<RecordDraft['lastExport']>,
  version: number,
): RecordEvent {
  return exportReported(
    { recordId: row.id, version, occurredAt: reportedAt(d, row.updated_at), historic: true },
    d.reviewStatus,
    lastExport,
  );
}
