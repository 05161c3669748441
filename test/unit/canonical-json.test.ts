import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, MAX_JSON_DEPTH } from '../../src/lib/canonical-json.js';

/** The first form of canonicalJson (entries, filter, sort, join): what every stored request hash was made with. */
function reference(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_JSON_DEPTH) throw new Error('too deep');
  if (Array.isArray(value)) return `[${value.map((v: unknown) => reference(v, depth + 1)).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${reference(v, depth + 1)}`).join(',')}}`;
}

/**
 * canonicalJson hashes every keyed request's body (Idempotency-Key): a request sent again must hash as it did when
 * its answer was stored, so its text stays the first form's for any value, whatever the key order.
 */
describe('canonicalJson', () => {
  it('writes what the first form wrote, for any value', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withObjectString: true,
          withNullPrototype: true,
          withSparseArray: true,
          withDate: true,
          withMap: true,
          withBoxedValues: true,
          withTypedArray: true,
          withUnicodeString: true,
        }),
        (value) => canonicalJson(value) === reference(value),
      ),
      { numRuns: 2000 },
    );
  });

  it('sorts keys by UTF-16 code units, leaves out undefined members, and writes holes and undefined items as join does', () => {
    const value: unknown[] = [1];
    value[2] = 2;
    value.push(undefined, { b: undefined, é: 1, Z: 2, a: [3], '\u{1F600}': 4, '\uffff': 5 });
    expect(canonicalJson(value)).toBe('[1,,2,null,{"Z":2,"a":[3],"é":1,"😀":4,"￿":5}]');
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe(canonicalJson({ a: { c: 3, d: 2 }, b: 1 }));
  });

  it(`refuses a value nested ${MAX_JSON_DEPTH} levels deep`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) deep = { a: deep };
    expect(() => canonicalJson(deep)).toThrow();
  });
});
