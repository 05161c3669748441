import { createHash } from 'node:crypto';
import { isRecord } from '../errors.js';
import { SvcApiError, type ExportResult, type SvcClient } from '../index.js';

export interface ReportOutcome {
  updated: string[];
  refused: { accounting_record_id: string; error_code: string; reason: string }[];
}

const REFUSAL_LISTS: Record<string, string> = {
  NOT_FOUND: 'not_found_export_entry_source_ids',
  DUPLICATE_ACCOUNTING_RECORD_IDS: 'duplicate_accounting_record_ids',
  ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT: 'not_ready_for_export_accounting_record_ids',
};

function isOptionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === 'string';
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** {accounting_record_id, success: {deep_link_url?, reference_id?}} or {accounting_record_id, failure: {error_message}}. */
function isExportResult(value: Record<string, unknown>): value is ExportResult {
  if (typeof value.accounting_record_id !== 'string') return false;
  const { success, failure } = value;
  if (success !== undefined) {
    return (
      failure === undefined &&
      isRecord(success) &&
      isOptionalString(success.deep_link_url) &&
      (success.reference_id === null || isOptionalString(success.reference_id))
    );
  }
  return isRecord(failure) && typeof failure.error_message === 'string';
}

/** Parses NDJSON export results; every bad line is reported with its number. */
export function parseResults(text: string): ExportResult[] {
  const results: ExportResult[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const value: unknown = JSON.parse(line);
      if (
        !isRecord(value) ||
        typeof value.accounting_record_id !== 'string' ||
        (value.success === undefined) === (value.failure === undefined)
      ) {
        throw new Error('needs accounting_record_id and exactly one of success, failure');
      }
      if (!isExportResult(value)) {
        throw new Error(
          'success must be {deep_link_url?: string, reference_id?: string | null}, failure {error_message: string}',
        );
      }
      results.push(value);
    } catch (error) {
      problems.push(`line ${i + 1}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  if (problems.length > 0) throw new Error(`invalid export results:\n  ${problems.join('\n  ')}`);
  return results;
}

/**
 * Posts results in batches of up to 1000. Each batch's Idempotency-Key is derived from its content, so running
 * the same report again (after a crash, say) replays instead of applying twice. A batch is atomic on the
 * server: when it is refused for some records, those are set aside with the reason and the rest is sent again.
 */
export async function reportResults(
  client: SvcClient,
  results: ExportResult[],
  batchSize = 1000,
): Promise<ReportOutcome> {
  const outcome: ReportOutcome = { updated: [], refused: [] };
  for (let start = 0; start < results.length; start += batchSize) {
    let batch = results.slice(start, start + batchSize);
    while (batch.length > 0) {
      const key = `svc-report-${createHash('sha256').update(JSON.stringify(batch)).digest('hex').slice(0, 48)}`;
      try {
        const res = await client.accountingRecords.reportExportResults(batch, { idempotencyKey: key });
        outcome.updated.push(...res.updated_accounting_record_ids);
        break;
      } catch (error) {
        if (!(error instanceof SvcApiError)) throw error;
        const list = REFUSAL_LISTS[error.error_code];
        const ids = list ? error.details?.[list] : undefined;
        if (!isStringArray(ids) || ids.length === 0) throw error;
        const refused = new Set(ids);
        for (const id of refused) {
          outcome.refused.push({ accounting_record_id: id, error_code: error.error_code, reason: error.message });
        }
        batch = batch.filter((r) => !refused.has(r.accounting_record_id));
      }
    }
  }
  return outcome;
}
