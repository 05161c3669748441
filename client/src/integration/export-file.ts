import fs from 'node:fs';
import path from 'node:path';
import type { ExportFormat } from '../index.js';

/**
 * What `svc export` does to the file it is given: reads the record ids it holds (where svc's writers put them:
 * hledger's svc_record tag, Beancount's svc_id metadata, a CSV's first column, reference), appends a fresh export
 * without the entries it holds already, and replaces the file whole (a temporary file, then a rename).
 */

export function idsIn(format: ExportFormat, text: string): Set<string> {
  if (format === 'hledger') return new Set([...text.matchAll(/[;,]\s*svc_record:([^,\s]+)/g)].map((m) => m[1]!));
  if (format === 'beancount') {
    return new Set([...text.matchAll(/^\s+svc_id: "((?:[^"\\]|\\.)*)"/gm)].map((m) => m[1]!.replace(/\\(.)/g, '$1')));
  }
  // The CSVs: the record id opens each row (Xero's Narration: the id, a space, the payee).
  const ids = new Set<string>();
  for (const row of text.split(/\r?\n/).slice(1)) {
    const first = row.replace(/^"/, '').split(/[ ,"]/, 1)[0]!;
    if (first !== '') ids.add(first);
  }
  return ids;
}

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

function appendCsv(existing: string, fresh: string, held: Set<string>): Appended {
  const [header, ...rows] = fresh.split('\r\n').filter((row) => row !== '');
  const existingHeader = existing.split(/\r?\n/, 1)[0];
  if (header !== existingHeader) {
    throw new AppendRefused(`the file's columns (${existingHeader}) are not the export's (${header})`);
  }
  const added = new Set<string>();
  const present = new Set<string>();
  const kept: string[] = [];
  for (const row of rows) {
    const id = [...idsIn('csv', `\n${row}`)][0]!;
    if (held.has(id)) present.add(id);
    else {
      added.add(id);
      kept.push(row);
    }
  }
  const base = /\n$/.test(existing) ? existing : `${existing}\r\n`;
  return {
    text: kept.length === 0 ? base : `${base}${kept.join('\r\n')}\r\n`,
    added: [...added],
    present: [...present],
  };
}

/**
 * A fresh export appended to a file's text: an entry whose record the file holds is skipped (a rerun never
 * duplicates); of a journal's directives, only the lines the file lacks are added (new accounts and commodities).
 */
export function appendExport(format: ExportFormat, existing: string, fresh: string): Appended {
  if (existing.trim() === '') return { text: fresh, added: [...idsIn(format, fresh)], present: [] };
  const held = idsIn(format, existing);
  if (format !== 'hledger' && format !== 'beancount') return appendCsv(existing, fresh, held);
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
  text.split('\n').forEach((line, i) => {
    const csv = format !== 'hledger' && format !== 'beancount';
    if (csv && i === 0) return;
    const [id] = idsIn(format, csv ? `\n${line}` : line);
    if (id !== undefined && !out.has(id)) out.set(id, `${name}:${i + 1}`);
  });
  return out;
}
