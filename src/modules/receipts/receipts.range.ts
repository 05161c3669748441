import type { ByteRange } from './receipts.store.js';

/**
 * One byte range of a Range header (RFC 9110 §14): `bytes=a-b`, `bytes=a-`, `bytes=-n`. Absent, malformed or
 * several ranges → null (the whole body is answered, as the RFC allows); a range starting past the end →
 * 'unsatisfiable' (416).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
