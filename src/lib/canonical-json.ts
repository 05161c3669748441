import { errors } from '../errors.js';

/** Deeper than any request of the API nests; a body beyond it is refused before it can exhaust the stack. */
export const MAX_JSON_DEPTH = 64;

/** JSON with sorted keys, so that two equal values write alike whatever their key order. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_JSON_DEPTH) throw errors.invalidField('', `must not nest deeper than ${MAX_JSON_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((v: unknown) => canonicalJson(v, depth + 1)).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, depth + 1)}`).join(',')}}`;
}
