/** Narrowing checks for values whose type is not known (parsed JSON, thrown errors, third-party objects). */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` is one of `choices` (a readonly tuple of literals). */
export function isOneOf<const T extends string>(choices: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (choices as readonly string[]).includes(value);
}

/** A JSON array of strings (as stored), or [] for anything else. */
export function stringsOf(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
