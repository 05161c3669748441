import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long a test waits for an event before it fails: a ceiling that turns a hang into a failure, never a measure
 * of speed (a loaded machine is slow, not broken). A test waits for the event itself, not for time to pass.
 */
export const CEILING_MS = 60_000;

/**
 * Resolves with the first value of `check` that is neither undefined nor false, asked again every `everyMs` (a pace,
 * not a bound); fails after `ceilingMs`, naming what it waited for.
 */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { ceilingMs = CEILING_MS, everyMs = 20 }: { ceilingMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = performance.now() + ceilingMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`no ${what} within ${ceilingMs / 1000} s`);
    await sleep(everyMs);
  }
}
