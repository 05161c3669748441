import { onSwitches, isOn } from './switches.js';

/**
 * Piece `suggestion-values`. The coded values of approved records as suggestions read them, kept in this process between requests, keyed by
 * account, record and version: a record's line items change only in a new version (coding, rules, split and
 * merge each write one), so the values of one version never change. A grid page's next request, and the next
 * page's records of the same vendors and users, read the history's rows (small, from one index each) but not
 * their line items again.
 *
 * Only committed versions get here: suggestions read their history inside the transaction of a read or of
 * accepting suggestions, and accepting changes only its subject (a record under review, never in a history,
 * which holds only approved records), after the suggestions are worked out.
 *
 * Bounded: at most MAX records (the oldest used dropped first), about 300 bytes each.
 *
 * Invariant: suggestions answer the same with the piece on or off (test/speed/suggestion-values.test.ts): a value
 * kept is looked up only by the version it was read at, and a new version of a record is a new key.
 */
export interface CodedValue {
  field_id: string;
  svc_id: string;
}

export const MAX = 50_000;
const kept = new Map<string, readonly CodedValue[]>();

const keyOf = (accountId: string, id: string, version: number) => `${accountId}\u0000${id}\u0000${version}`;

let enabled = true;
onSwitches(() => {
  enabled = isOn('suggestion-values');
  if (!enabled) kept.clear();
});

export const suggestionValues = {
  get(accountId: string, id: string, version: number): readonly CodedValue[] | undefined {
    if (!enabled) return undefined;
    const key = keyOf(accountId, id, version);
    const values = kept.get(key);
    if (values) {
      // Most recently used last: the Map's order is the eviction order.
      kept.delete(key);
      kept.set(key, values);
    }
    return values;
  },

  set(accountId: string, id: string, version: number, values: readonly CodedValue[]): void {
    if (!enabled) return;
    kept.set(keyOf(accountId, id, version), values);
    while (kept.size > MAX) kept.delete(kept.keys().next().value!);
  },

  /** Forgets everything (tests that rewrite stored rows behind the services' back). */
  clear(): void {
    kept.clear();
  },

  /** How many record versions are kept (the test of the bound). */
  size(): number {
    return kept.size;
  },
};
