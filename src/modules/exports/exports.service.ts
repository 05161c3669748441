import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { isoToMicros } from '../../lib/clock.js';
import type { Tenant } from '../auth/auth.service.js';
import { exportSelectionService, type ExportSelection } from '../accounting/export-selection.service.js';
import { DEFAULT_CSV_COLUMNS } from './exports.csv.js';
import { render, writerOf } from './exports.formats.js';
import { exportMapping } from './export-mapping.service.js';
import { mapRecords, type Entry } from './exports.mapping.js';
import type { ExportInput } from './exports.schemas.js';

export interface ExportedFile {
  fileName: string;
  mediaType: string;
  body: string;
  recordIds: string[];
}

const DAY_MICROS = 86_400_000_000;

function dayStart(path: string, day: string | undefined): number | null {
  if (day === undefined) return null;
  const micros = isoToMicros(`${day}T00:00:00Z`);
  if (micros === null) throw errors.invalidField(path, 'must be a calendar day, YYYY-MM-DD');
  return micros;
}

function selectionOf(input: ExportInput): ExportSelection {
  const from = dayStart('/body/posted_from', input.posted_from);
  const toDay = dayStart('/body/posted_to', input.posted_to);
  if (input.accounting_record_ids !== undefined) {
    if (from !== null || toDay !== null) {
      throw errors.invalidField('/body/accounting_record_ids', 'cannot be given with posted_from or posted_to');
    }
    return { kind: 'ids', ids: input.accounting_record_ids };
  }
  if (from !== null && toDay !== null && toDay < from) {
    throw errors.invalidField('/body/posted_to', 'must be on or after posted_from');
  }
  return { kind: 'ready', from, to: toDay === null ? null : toDay + DAY_MICROS };
}

/** How many of the entries, in file order, fit in one file of `maxLines` rows (whole entries only). */
function fittingRecords(entries: readonly Entry[], maxLines: number): number {
  let lines = 0;
  let n = 0;
  for (const entry of entries) {
    lines += entry.postings.length;
    if (lines > maxLines) break;
    n++;
  }
  return n;
}

/**
 * File exports: the selected records through the one mapping (exports.mapping.ts) into one format's writer.
 * All or nothing: a record that cannot be exported refuses the whole file, naming each such record.
 */
export const exportsService = {
  async file(ex: Executor, tenant: Tenant, input: ExportInput, today: string): Promise<ExportedFile> {
    if (input.columns !== undefined && input.format !== 'csv') {
      throw errors.invalidField('/body/columns', 'is taken only with format csv');
    }
    const { rows, missing } = await exportSelectionService.rows(ex, tenant, selectionOf(input));
    const excluded = new Set(input.exclude_accounting_record_ids ?? []);
    const mapping = await exportMapping.options(ex, tenant, input);
    const { entries, refused } = mapRecords(
      rows.filter((row) => !excluded.has(row.id)),
      mapping,
    );
    const writer = writerOf(input.format, input.columns ?? DEFAULT_CSV_COLUMNS, mapping);
    for (const entry of entries) {
      const problems = writer.refuse(entry);
      if (problems.length > 0) {
        refused.push({ accounting_record_id: entry.recordId, review_status: 'READY_FOR_EXPORT', problems });
      }
    }
    const notFound = missing.filter((id) => !excluded.has(id));
    if (notFound.length > 0) throw errors.exportedSelectionNotFound(notFound);
    if (refused.length > 0) throw errors.exportRefused(refused);
    const lines = entries.reduce((n, e) => n + e.postings.length, 0);
    if (writer.maxLines !== undefined && lines > writer.maxLines) {
      throw errors.exportTooLarge(input.format, lines, writer.maxLines, fittingRecords(entries, writer.maxLines));
    }
    return {
      fileName: `svc-export-${today}.${writer.extension}`,
      mediaType: writer.mediaType,
      body: render(writer, entries),
      recordIds: entries.map((e) => e.recordId),
    };
  },
};
