import type { FieldValueCreate, FieldValueUpdate } from '@svc/client';
import type { ExistingRows, PlannedRow } from './plan';

/**
 * A request whose answer never came (a lost connection, a closed tab): sent again first, as it was. `key` is its
 * Idempotency-Key: the same request again is answered as the first was, never stored twice.
 */
export type InFlight = { key: string; rows: number[] } & (
  { kind: 'created'; body: FieldValueCreate[] } | { kind: 'updated'; body: FieldValueUpdate[] }
);

/**
 * An import not finished, kept in the browser per field (localStorage) until it is: which file (its fingerprint),
 * how rows whose remote_id exists were handled, the rows answered (stored or refused: never sent again) and the
 * request in flight.
 */
export interface UnfinishedImport {
  fingerprint: string;
  fileName: string;
  mode: ExistingRows;
  /** Rows answered, as [first, last] ranges of row numbers. */
  done: [number, number][];
  inFlight: InFlight | null;
  /** Rows to send in all. */
  total: number;
}

const storageKey = (fieldId: string) => `svc.console.import.${fieldId}`;

/** What this console wrote (an older or foreign entry is ignored, as if none). */
function isUnfinished(value: unknown): value is UnfinishedImport {
  if (typeof value !== 'object' || value === null) return false;
  const flight = 'inFlight' in value ? value.inFlight : undefined;
  return (
    'fingerprint' in value &&
    typeof value.fingerprint === 'string' &&
    'fileName' in value &&
    typeof value.fileName === 'string' &&
    'mode' in value &&
    (value.mode === 'skip' || value.mode === 'update') &&
    'done' in value &&
    Array.isArray(value.done) &&
    'total' in value &&
    typeof value.total === 'number' &&
    (flight === null ||
      (typeof flight === 'object' && flight !== undefined && 'body' in flight && Array.isArray(flight.body)))
  );
}

export function loadUnfinished(fieldId: string): UnfinishedImport | null {
  try {
    const text = window.localStorage.getItem(storageKey(fieldId));
    const kept: unknown = text ? JSON.parse(text) : null;
    return isUnfinished(kept) ? kept : null;
  } catch {
    return null;
  }
}

/** False when the browser would not keep it (storage full or off): the import goes on, not resumable. */
export function saveUnfinished(fieldId: string, unfinished: UnfinishedImport): boolean {
  try {
    window.localStorage.setItem(storageKey(fieldId), JSON.stringify(unfinished));
    return true;
  } catch {
    return false;
  }
}

export function forgetUnfinished(fieldId: string): void {
  try {
    window.localStorage.removeItem(storageKey(fieldId));
  } catch {
    // Nothing kept, nothing to forget.
  }
}

/** The file's identity (FNV-1a over its text, twice, and its length): the same file chosen again, not a secret. */
export function fingerprintOf(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return `${text.length}-${a.toString(16)}-${b.toString(16)}`;
}

export function toRanges(rows: Iterable<number>): [number, number][] {
  const sorted = [...new Set(rows)].sort((x, y) => x - y);
  const ranges: [number, number][] = [];
  for (const row of sorted) {
    const last = ranges.at(-1);
    if (last && row === last[1] + 1) last[1] = row;
    else ranges.push([row, row]);
  }
  return ranges;
}

export function fromRanges(ranges: readonly [number, number][]): Set<number> {
  const rows = new Set<number>();
  for (const [first, last] of ranges) for (let row = first; row <= last; row++) rows.add(row);
  return rows;
}

/** The rows still to send of a previewed file: to create or update, neither answered nor in flight. */
export function rowsLeft(planned: PlannedRow[], unfinished: UnfinishedImport | null): PlannedRow[] {
  const done = fromRanges(unfinished?.done ?? []);
  const flying = new Set(unfinished?.inFlight?.rows ?? []);
  return planned.filter(
    (p) => (p.outcome === 'create' || p.outcome === 'update') && !done.has(p.row) && !flying.has(p.row),
  );
}

/** The first row an unfinished import has not applied: the request in flight's, or the first left to send. */
export function firstRowLeft(planned: PlannedRow[], unfinished: UnfinishedImport): number | null {
  const rows = [...(unfinished.inFlight?.rows ?? []), ...rowsLeft(planned, unfinished).map((p) => p.row)];
  return rows.reduce<number | null>((min, row) => (min === null || row < min ? row : min), null);
}
