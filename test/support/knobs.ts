/**
 * A whole number ≥ `min` from the environment, `fallback` when unset: the reliability suite's knobs (CI values as
 * defaults; `npm run soak` sets larger ones). Anything else fails the test file at once, naming the variable.
 */
export function knob(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min) {
    throw new Error(`${name}=${JSON.stringify(raw)}: expected a whole number ≥ ${min}`);
  }
  return Number(raw);
}
