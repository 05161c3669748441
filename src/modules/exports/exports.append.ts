import { EXPORT_FORMATS, writerOf, type ExportFormat } from './exports.formats.js';

/**
 * Appending a fresh export to a file that already holds entries: an entry whose record id the file holds is
 * skipped (a rerun never duplicates); of the header, only the lines the file lacks are added (a journal's new
 * accounts and commodities; a CSV's header must be the file's own).
 */
export interface Appended {
  text: string;
  /** Records whose entries were added. */
  added: string[];
  /** Records of the fresh export the file held already. */
  present: string[];
}

export class AppendError extends Error {
  override name = 'AppendError';
}

export function isExportFormat(text: string): text is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(text);
}

export function appendExport(format: ExportFormat, existing: string, fresh: string): Appended {
  const writer = writerOf(format, []);
  const freshIds = [...writer.ids(fresh)];
  if (existing.trim() === '') return { text: fresh, added: freshIds, present: [] };
  const held = writer.ids(existing);
  const added: string[] = [];
  const present: string[] = [];
  const kept: string[] = [];
  if (format === 'csv') {
    const [header, ...rows] = fresh.split('\r\n').filter((row) => row !== '');
    const existingHeader = existing.split(/\r?\n/, 1)[0];
    if (header !== existingHeader) {
      throw new AppendError(`the file's columns (${existingHeader}) are not the export's (${header})`);
    }
    for (const row of rows) {
      const id = [...writer.ids(`\n${row}`)][0]!;
      if (held.has(id)) {
        if (!present.includes(id)) present.push(id);
        continue;
      }
      if (!added.includes(id)) added.push(id);
      kept.push(row);
    }
    const base = /\r?\n$/.test(existing) ? existing : `${existing}\r\n`;
    return { text: kept.length === 0 ? base : `${base}${kept.join('\r\n')}\r\n`, added, present };
  }
  const lines = new Set(existing.split('\n').map((line) => line.trimEnd()));
  for (const block of fresh.split(/\n{2,}/)) {
    const ids = [...writer.ids(block)];
    if (ids.length === 0) {
      const missing = block.split('\n').filter((line) => line.trim() !== '' && !lines.has(line.trimEnd()));
      if (missing.length > 0) kept.push(missing.join('\n'));
      continue;
    }
    if (held.has(ids[0]!)) present.push(ids[0]!);
    else {
      added.push(ids[0]!);
      kept.push(block.trimEnd());
    }
  }
  const base = existing.endsWith('\n') ? existing : `${existing}\n`;
  return { text: kept.length === 0 ? base : `${base}\n${kept.join('\n\n')}\n`, added, present };
}
