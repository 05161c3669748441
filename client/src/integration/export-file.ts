import fs from 'node:fs';
import path from 'node:path';
import type { ExportFormat } from '../index.js';
import { CsvSyntaxError, readCsv, type CsvRow } from './csv.js';

/**
 * What `svc export` does to the file it is given: reads the record ids it holds (where svc's writers put them:
 * hledger's svc_record tag, Beancount's svc_id metadata, a CSV's id column, below), appends a fresh export
 * without the entries it holds already, and replaces the file whole (a temporary file, then a rename).
 */

const isJournal = (format: ExportFormat) => format === 'hledger' || format === 'beancount';

/**
 * Where a CSV format keeps the record id: the column, and how the id is read from it (Xero's Narration: the id,
 * a space, the payee; QuickBooks Online's Memo, since its Journal No holds only 21 characters).
 */
const ID_COLUMN: Record<Exclude<ExportFormat, 'hledger' | 'beancount'>, string> = {
  csv: 'reference',
  quickbooks: 'Memo',
  xero: 'Narration',
  netsuite: 'External ID',
};

/** Each data row of a CSV export with the record id it carries (the header row names the id's column). */
function csvRows(format: ExportFormat, text: string): { id: string; row: CsvRow }[] {
  const [header, ...rows] = readCsv(text);
  if (header === undefined || isJournal(format)) return [];
  const column = header.fields.indexOf(ID_COLUMN[format as keyof typeof ID_COLUMN]);
  if (column === -1) return [];
  return rows.flatMap((row) => {
    const id = (row.fields[column] ?? '').split(' ', 1)[0]!;
    return row.raw === '' || id === '' ? [] : [{ id, row }];
  });
}

export function idsIn(format: ExportFormat, text: string): Set<string> {
  if (format === 'hledger') return new Set([...text.matchAll(/[;,]\s*svc_record:([^,\s]+)/g)].map((m) => m[1]!));
  if (format === 'beancount') {
    return new Set([...text.matchAll(/^\s+svc_id: "((?:[^"\\]|\\.)*)"/gm)].map((m) => m[1]!.replace(/\\(.)/g, '$1')));
  }
  return new Set(csvRows(format, text).map((r) => r.id));
}

/** Xero's import takes at most this many lines (rows after the header) in one file (docs/exports.md). */
export const XERO_MAX_LINES = 300;

export interface Appended {
  text: string;
  /** Records whose entries were added. */
  added: string[];
  /** Records of the fresh export whose entries the file held already. */
  present: string[];
}

export class AppendRefused extends Error {
  override name = 'IntegrationUsageError';
}

function appendCsv(format: ExportFormat, existing: string, fresh: string, held: Set<string>): Appended {
  const header = readCsv(fresh)[0]?.raw;
  const existingHeader = readCsv(existing)[0]?.raw;
  if (header !== existingHeader) {
    throw new AppendRefused(`the file's columns (${existingHeader}) are not the export's (${header})`);
  }
  const added = new Set<string>();
  const present = new Set<string>();
  const kept: string[] = [];
  for (const { id, row } of csvRows(format, fresh)) {
    if (held.has(id)) present.add(id);
    else {
      added.add(id);
      kept.push(row.raw);
    }
  }
  if (format === 'xero') {
    const lines = csvRows(format, existing).length + kept.length;
    if (lines > XERO_MAX_LINES) {
      throw new AppendRefused(
        `the file would hold ${lines} journal lines and Xero imports at most ${XERO_MAX_LINES} in one file: export into a new file (--out), or fewer records (--from/--to, --record)`,
      );
    }
  }
  const base = /\n$/.test(existing) ? existing : `${existing}\r\n`;
  return {
    text: kept.length === 0 ? base : `${base}${kept.join('\r\n')}\r\n`,
    added: [...added],
    present: [...present],
  };
}

/** The ids the file holds; a file that is not CSV is refused, as a file of other columns is. */
function heldIds(format: ExportFormat, existing: string): Set<string> {
  try {
    return idsIn(format, existing);
  } catch (error) {
    if (error instanceof CsvSyntaxError)
      throw new AppendRefused(`the file is not CSV as svc writes it: ${error.message}`);
    throw error;
  }
}

/**
 * A fresh export appended to a file's text: an entry whose record the file holds is skipped (a rerun never
 * duplicates); of a journal's directives, only the lines the file lacks are added (new accounts and commodities).
 */
export function appendExport(format: ExportFormat, existing: string, fresh: string): Appended {
  if (existing.trim() === '') return { text: fresh, added: [...idsIn(format, fresh)], present: [] };
  const held = heldIds(format, existing);
  if (!isJournal(format)) return appendCsv(format, existing, fresh, held);
  const lines = new Set(existing.split('\n').map((line) => line.trimEnd()));
  const added: string[] = [];
  const present: string[] = [];
  const kept: string[] = [];
  for (const block of fresh.split(/\n{2,}/)) {
    const id = [...idsIn(format, block)][0];
    if (id === undefined) {
      const missing = block.split('\n').filter((line) => line.trim() !== '' && !lines.has(line.trimEnd()));
      if (missing.length > 0) kept.push(missing.join('\n'));
    } else if (held.has(id)) present.push(id);
    else {
      added.push(id);
      kept.push(block.trimEnd());
    }
  }
  const base = existing.endsWith('\n') ? existing : `${existing}\n`;
  return { text: kept.length === 0 ? base : `${base}\n${kept.join('\n\n')}\n`, added, present };
}

/** The file's text, or '' when there is none yet. */
export function readIfAny(file: string): string {
  if (!fs.existsSync(file)) return '';
  return fs.readFileSync(file, 'utf8');
}

/** Replaces the file whole: written beside it, flushed, then renamed over it. */
export function replaceFile(file: string, text: string): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = fs.openSync(temporary, 'w', 0o644);
  try {
    fs.writeFileSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
}

/** Each record's reference in the file: "books.journal:42", the line that carries its id (its first). */
export function referencesIn(format: ExportFormat, file: string, text: string): Map<string, string> {
  const out = new Map<string, string>();
  const name = path.basename(file);
  if (!isJournal(format)) {
    for (const { id, row } of csvRows(format, text)) if (!out.has(id)) out.set(id, `${name}:${row.line}`);
    return out;
  }
  text.split('\n').forEach((line, i) => {
    const [id] = idsIn(format, line);
    if (id !== undefined && !out.has(id)) out.set(id, `${name}:${i + 1}`);
  });
  return out;
}
