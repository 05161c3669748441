import timers from 'node:timers';
import { afterAll, beforeAll, vi } from 'vitest';
import { resetClock } from '../../src/lib/clock.js';

/**
 * Runs around every test file (vitest's setupFiles). A worker runs many test files in one process with one module
 * graph (the config's `isolate: false`), so what a file changes in a module's state must not reach the next file:
 * the service's clock (frozen or moved forward by clock-driven tests) and the timers a test faked.
 */
afterAll(() => {
  vi.useRealTimers();
  resetClock();
});

const REAL_TIMERS = [
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
] as const;

/**
 * The timers a file starts with are Node's own. A fake left as a global (a `vi.spyOn` over a faked setTimeout is
 * restored by vitest between files to the fake it wrapped) never fires: every wait on it in a later file hung until
 * the test's ceiling. Put back here, and said, so that the file that leaked it can be found.
 */
beforeAll(() => {
  const replaced = REAL_TIMERS.filter((name) => globalThis[name] !== timers[name]);
  if (replaced.length === 0) return;
  for (const name of replaced) Object.assign(globalThis, { [name]: timers[name] });
  console.warn(`file-isolation: ${replaced.join(', ')} left replaced by an earlier file in this worker; put back`);
});
