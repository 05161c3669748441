import { createHash } from 'node:crypto';
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

/** Parses NDJSON export results; every bad line is reported with its number. */
export function parseResults(text: string): ExportResult[] {
  const results: ExportResult[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const value = JSON.parse(line) as Record<string, unknown>;
      if (
        typeof value.accounting_record_id !== 'string' ||
        (value.success === undefined) === (value.failure === undefined)
      ) {
        throw new Error('needs accounting_record_id and exactly one of success, failure');
      }
      results.push(value as unknown as ExportResult);
    } catch (error) {
      problems.push(`line ${i + 1}: ${(error as Error).message}`);
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
        const list = error instanceof SvcApiError ? REFUSAL_LISTS[error.error_code] : undefined;
        const ids = list ? ((error as SvcApiError).details?.[list] as string[] | undefined) : undefined;
        if (!ids || ids.length === 0) throw error;
        const refused = new Set(ids);
        for (const id of refused) {
          outcome.refused.push({
            accounting_record_id: id,
            error_code: (error as SvcApiError).error_code,
            reason: (error as SvcApiError).message,
          });
        }
        batch = batch.filter((r) => !refused.has(r.accounting_record_id));
      }
    }
  }
  return outcome;
}
