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
 * Bounded: at most MAX records (the oldest used dropped first). A record's values are the few of its account's chart
 * that its lines carry, and the same values recur across thousands of records: each (field, value) pair is kept once
 * and shared (`sharedValue`). 50,000 records of 4 values then hold about 10 MB (a key and an array of references,
 * about 200 bytes a record), where copies of each record's values as read from its JSON held 44 MB (8 values: 12
 * against 79 MB; measured with V8's heap after a full GC). The shared pairs are at most MAX_SHARED more, about 170
 * bytes each (8.5 MB where values never repeat; a company's chart in use is a few thousand).
 *
 * Invariant: suggestions answer the same with the piece on or off (test/speed/suggestion-values.test.ts): a value
 * kept is looked up only by the version it was read at, and a new version of a record is a new key.
 */
export interface CodedValue {
  readonly field_id: string;
  readonly svc_id: string;
}

export const MAX = 50_000;
const kept = new Map<string, readonly CodedValue[]>();
/**
 * One object for each (field, value) pair in use. Emptied when it reaches MAX_SHARED pairs (accounts of many values
 * asked about in turn): what is kept still holds its objects, which are only no longer shared with newcomers.
 */
export const MAX_SHARED = 50_000;
const shared = new Map<string, CodedValue>();

function sharedValue(value: CodedValue): CodedValue {
  const key = `${value.field_id}\u0000${value.svc_id}`;
  let one = shared.get(key);
  if (!one) {
    if (shared.size >= MAX_SHARED) shared.clear();
    one = Object.freeze({ field_id: value.field_id, svc_id: value.svc_id });
    shared.set(key, one);
  }
  return one;
}

const keyOf = (accountId: string, id: string, version: number) => `${accountId}\u0000${id}\u0000${version}`;

let enabled = true;
onSwitches(() => {
  enabled = isOn('suggestion-values');
  if (!enabled) {
    kept.clear();
    shared.clear();
  }
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
    kept.set(keyOf(accountId, id, version), values.map(sharedValue));
    while (kept.size > MAX) kept.delete(kept.keys().next().value!);
  },

  /** Forgets everything (tests that rewrite stored rows behind the services' back). */
  clear(): void {
    kept.clear();
    shared.clear();
  },

  /** How many record versions are kept (the test of the bound). */
  size(): number {
    return kept.size;
  },
};
