/**
 * The cursors of the pages before the current one (keyset paging cannot go back on its own), kept in the
 * browser history entry's state: after opening a record and coming back, the queue is on the same page.
 */
interface Stored {
  search: string;
  cursors: string[];
}

function isStored(value: unknown): value is Stored {
  return (
    typeof value === 'object' &&
    value !== null &&
    'search' in value &&
    typeof value.search === 'string' &&
    'cursors' in value &&
    Array.isArray(value.cursors) &&
    value.cursors.every((c: unknown) => typeof c === 'string')
  );
}

export function readCursors(search: string): string[] {
  const state: unknown = window.history.state;
  const stored: unknown =
    typeof state === 'object' && state !== null && 'queuePages' in state ? state.queuePages : null;
  return isStored(stored) && stored.search === search ? stored.cursors : [];
}

export function writeCursors(search: string, cursors: string[]): void {
  const state: unknown = window.history.state;
  const base = typeof state === 'object' && state !== null ? state : {};
  window.history.replaceState({ ...base, queuePages: { search, cursors } satisfies Stored }, '');
}
