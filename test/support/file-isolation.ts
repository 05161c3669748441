import { afterAll, vi } from 'vitest';
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
