import type { FieldValueCreate } from '@svc/client';
import { plural } from '../../../lib/format';
import { isBlank, parseCsv } from './csv';

/** The columns a values CSV may have: the members of the API's value creation. */
export const CSV_COLUMNS = ['value', 'remote_id', 'value_id', 'is_disabled'] as const;
type Column = (typeof CSV_COLUMNS)[number];

/** One value to create, and the row of the file it came from. */
export interface ImportRow {
  row: number;
  item: FieldValueCreate;
}

/** A row the file itself gets wrong (a cell too many, an is_disabled that is not true or false): never sent. */
export interface InvalidRow {
  row: number;
  reason: string;
}

/** A problem that stops the file from being imported at all (nothing is sent). */
export interface FileProblem {
  row: number | null;
  message: string;
}

export type ReadFile =
  { ok: true; rows: ImportRow[]; invalid: InvalidRow[]; delimiter: ',' | ';' } | { ok: false; problems: FileProblem[] };

const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);

function isColumn(name: string): name is Column {
  return CSV_COLUMNS.some((c) => c === name);
}

/**
 * Reads a values CSV: a header row naming its columns (`value` required; `remote_id`, `value_id`, `is_disabled`
 * optional; in any order, any case), then one value a row. Empty optional cells are left out of the value; blank
 * rows are skipped. A header the import cannot read stops the file; a row it cannot read is an invalid row, with
 * its reason, and the others go on; what the values get wrong (too long, a remote_id taken) the service decides,
 * row by row.
 */
export function readValuesCsv(text: string): ReadFile {
  const table = parseCsv(text);
  if (table.error) return { ok: false, problems: [{ row: table.error.row, message: table.error.message }] };
  const [header, ...records] = table.records;
  if (!header || isBlank(header)) {
    return { ok: false, problems: [{ row: null, message: 'The file is empty: its first row must name the columns.' }] };
  }

  const names = header.cells.map((c) => c.trim().toLowerCase());
  const problems: FileProblem[] = [];
  const unknown = names.filter((n) => !isColumn(n));
  if (unknown.length > 0) {
    problems.push({
      row: 1,
      message: `Unknown column ${unknown.map((n) => `“${n}”`).join(', ')}: the columns are ${CSV_COLUMNS.join(', ')}.`,
    });
  }
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  if (repeated.length > 0) problems.push({ row: 1, message: `Column “${repeated[0]}” is named twice.` });
  if (!names.includes('value')) problems.push({ row: 1, message: 'The header has no “value” column.' });
  if (problems.length > 0) return { ok: false, problems };

  const rows: ImportRow[] = [];
  const invalid: InvalidRow[] = [];
  for (const record of records) {
    if (isBlank(record)) continue;
    if (record.cells.length > names.length) {
      invalid.push({
        row: record.row,
        reason: `It has ${record.cells.length} cells; the header names ${plural(names.length, 'column')}.`,
      });
      continue;
    }
    const cell = (column: Column) => {
      const at = names.indexOf(column);
      return at === -1 ? '' : (record.cells[at] ?? '');
    };
    // The value is sent as written (an empty one is the service's to refuse, on its row); ids are trimmed.
    const item: FieldValueCreate = { value: cell('value') };
    const remoteId = cell('remote_id').trim();
    const valueId = cell('value_id').trim();
    if (remoteId !== '') item.remote_id = remoteId;
    if (valueId !== '') item.value_id = valueId;
    const disabled = cell('is_disabled').trim().toLowerCase();
    if (TRUE.has(disabled)) item.is_disabled = true;
    else if (FALSE.has(disabled)) item.is_disabled = false;
    else if (disabled !== '') {
      invalid.push({
        row: record.row,
        reason: `is_disabled is “${cell('is_disabled').trim()}”: write true or false (or leave it empty: false).`,
      });
      continue;
    }
    rows.push({ row: record.row, item });
  }
  if (rows.length === 0 && invalid.length === 0) {
    return { ok: false, problems: [{ row: null, message: 'The file has a header but no value rows.' }] };
  }
  return { ok: true, rows, invalid, delimiter: table.delimiter };
}
