import { isRecord } from '../errors.js';
import { SvcApiError, type ExportFileRequest, type ExportFormat, type ExportResult, type SvcClient } from '../index.js';
import { appendExport, readIfAny, referencesIn, replaceFile } from './export-file.js';
import { reportResults } from './report.js';

/** What an export refused of a record (details.records of EXPORT_REFUSED). */
interface Refusal {
  accounting_record_id: string;
  review_status: string;
  problems: string[];
}

/** One line of `svc export`'s output per record. */
export type ExportLine =
  | { accounting_record_id: string; result: 'SUCCESS'; reference_id: string; reported: boolean }
  | { accounting_record_id: string; result: 'FAILURE'; reason: string; reported: boolean }
  | { accounting_record_id: string; result: 'NOT_EXPORTED'; reason: string };

export interface ExportRun {
  client: SvcClient;
  format: ExportFormat;
  file: string;
  request: Omit<ExportFileRequest, 'format' | 'exclude_accounting_record_ids'>;
}

const MAX_EXCLUDED = 1000;

function refusalsOf(error: unknown): Refusal[] | null {
  if (!(error instanceof SvcApiError) || error.error_code !== 'EXPORT_REFUSED') return null;
  const records: unknown = error.details?.records;
  if (!Array.isArray(records)) return null;
  return records.filter(
    (r): r is Refusal =>
      isRecord(r) &&
      typeof r.accounting_record_id === 'string' &&
      typeof r.review_status === 'string' &&
      Array.isArray(r.problems),
  );
}

/**
 * `svc export`: the file of the selected records, as svc writes it, appended to `file` (entries it holds already
 * skipped) and put in place whole; then each record's outcome reported through export results, as a connector
 * does: SUCCESS with its place in the file, FAILURE with the reason for a READY_FOR_EXPORT record svc could not
 * map. A record refused for another reason (not ready) is named and left alone.
 */
export async function exportToFile(run: ExportRun): Promise<ExportLine[]> {
  const refused: Refusal[] = [];
  let fresh: string | null = null;
  while (fresh === null) {
    try {
      fresh = await run.client.accountingRecords.exportFile({
        format: run.format,
        ...run.request,
        ...(refused.length === 0 ? {} : { exclude_accounting_record_ids: refused.map((r) => r.accounting_record_id) }),
      });
    } catch (error) {
      const more = refusalsOf(error);
      if (more === null || more.length === 0 || refused.length + more.length > MAX_EXCLUDED) throw error;
      refused.push(...more);
    }
  }
  const appended = appendExport(run.format, readIfAny(run.file), fresh);
  replaceFile(run.file, appended.text);
  const references = referencesIn(run.format, run.file, appended.text);
  const exported = [...appended.present, ...appended.added];
  const failures = refused.filter((r) => r.review_status === 'READY_FOR_EXPORT');
  const results: ExportResult[] = [
    ...exported.map((id) => ({ accounting_record_id: id, success: { reference_id: references.get(id) ?? null } })),
    ...failures.map((r) => ({
      accounting_record_id: r.accounting_record_id,
      failure: { error_message: r.problems.join('; ') },
    })),
  ];
  const outcome = await reportResults(run.client, results);
  const notReported = new Map(outcome.refused.map((r) => [r.accounting_record_id, r.reason]));
  return [
    ...exported.map((id): ExportLine => ({
      accounting_record_id: id,
      result: 'SUCCESS',
      reference_id: references.get(id) ?? '',
      reported: !notReported.has(id),
    })),
    ...failures.map((r): ExportLine => ({
      accounting_record_id: r.accounting_record_id,
      result: 'FAILURE',
      reason: r.problems.join('; '),
      reported: !notReported.has(r.accounting_record_id),
    })),
    ...refused
      .filter((r) => r.review_status !== 'READY_FOR_EXPORT')
      .map((r): ExportLine => ({
        accounting_record_id: r.accounting_record_id,
        result: 'NOT_EXPORTED',
        reason: r.problems.join('; '),
      })),
  ];
}
