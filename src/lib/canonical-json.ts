import { errors } from '../errors.js';

/** Deeper than any request of the API nests; a body beyond it is refused before it can exhaust the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * JSON with sorted keys, so that two equal values write alike whatever their key order. Written with loops and
 * one string rather than entries, filters and joins: it hashes every keyed request's body (1000 results or values
 * are 3000 objects), and the arrays those made cost more than the writing.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_JSON_DEPTH) throw errors.invalidField('', `must not nest deeper than ${MAX_JSON_DEPTH} levels`);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      // A hole writes nothing, as join() writes it.
      if (i in value) out += canonicalJson(value[i], depth + 1);
    }
    return `${out}]`;
  }
  // Default sort compares UTF-16 code units, as `<` does.
  const keys = Object.keys(value).sort();
  let out = '{';
  for (const key of keys) {
    const v: unknown = Reflect.get(value, key);
    if (v === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(v, depth + 1)}`;
  }
  return `${out}}`;
}
