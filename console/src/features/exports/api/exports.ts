import { SvcApiError, type ExportedFile, type ExportFileRequest } from '@svc/client';
import { useMutation } from '@tanstack/react-query';
import { client } from '../../../lib/client';

/** The file of the selected records (nothing changes on the service), with the name the service gives it. */
export function useExportFile() {
  return useMutation({
    mutationFn: (body: ExportFileRequest) => client.accountingRecords.exportDownload(body),
  });
}

/**
 * Saves the file as the browser saves a download: a Blob under the service's file name. The object URL is let go
 * once the browser has taken the click.
 */
export function saveFile(file: ExportedFile): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: file.content_type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.file_name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** One record an export refused (details.records of 422 EXPORT_REFUSED). */
export interface RefusedRecord {
  accounting_record_id: string;
  review_status: string;
  problems: string[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The records a refused export names; empty for any other error. */
export function refusedRecords(error: unknown): RefusedRecord[] {
  if (!(error instanceof SvcApiError) || error.error_code !== 'EXPORT_REFUSED' || !isObject(error.details)) return [];
  const records = error.details.records;
  if (!Array.isArray(records)) return [];
  return records.filter(
    (r): r is RefusedRecord =>
      isObject(r) &&
      typeof r.accounting_record_id === 'string' &&
      typeof r.review_status === 'string' &&
      Array.isArray(r.problems) &&
      r.problems.every((p) => typeof p === 'string'),
  );
}

/** The ids an export did not find (details.not_found_accounting_record_ids of 404 NOT_FOUND). */
export function notFoundIds(error: unknown): string[] {
  if (!(error instanceof SvcApiError) || error.error_code !== 'NOT_FOUND' || !isObject(error.details)) return [];
  const ids = error.details.not_found_accounting_record_ids;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}
