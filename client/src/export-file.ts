import type { FileAnswer } from './sender.js';

/** A file export as the server answered it: its text, and the name and media type the server gave it. */
export interface ExportedFile {
  text: string;
  /** From Content-Disposition, e.g. `svc-export-2026-11-26.journal`; `svc-export` when the server named none. */
  file_name: string;
  /** Content-Type, e.g. `text/csv; charset=utf-8`. */
  content_type: string;
  /** How many records the file holds (X-Svc-Exported-Count); null when the server did not say. */
  exported_count: number | null;
}

const FALLBACK_NAME = 'svc-export';

/**
 * The file name of a Content-Disposition header: `filename*=UTF-8''…` (RFC 6266) before `filename="…"`, and only its
 * last path segment, so that a name never reaches a directory a caller did not choose.
 */
export function fileNameOf(disposition: string | null): string {
  if (disposition === null) return FALLBACK_NAME;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition)?.[1];
  let name: string | undefined;
  if (extended !== undefined) {
    try {
      name = decodeURIComponent(extended.trim());
    } catch {
      name = undefined;
    }
  }
  name ??= /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/
    .exec(disposition)
    ?.slice(1)
    .find((x) => x !== undefined);
  const base = name?.replace(/\\(.)/g, '$1').split(/[/\\]/).pop()?.trim();
  return base === undefined || base === '' || base === '.' || base === '..' ? FALLBACK_NAME : base;
}

export function exportedFileOf(answer: FileAnswer): ExportedFile {
  const count = answer.headers.get('x-svc-exported-count');
  return {
    text: answer.text,
    file_name: fileNameOf(answer.headers.get('content-disposition')),
    content_type: answer.headers.get('content-type') ?? 'application/octet-stream',
    exported_count: count !== null && /^\d+$/.test(count) ? Number(count) : null,
  };
}
