import { it, vi } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { fuzzOperations, GARBAGE_RUNS, GARBAGE_TIMEOUT_MS } from '../support/reliability-fuzz.js';

/** The second shard of garbage.test.ts's fuzzing of the authenticated operations (same knob, same checks). */
vi.setConfig({ testTimeout: GARBAGE_TIMEOUT_MS });

describeEachDialect('garbage (fast-check), second shard', (t) => {
  it('answers every garbage request of the authenticated operations (second of two shards) below 500, in the error shape, changing nothing', () =>
    fuzzOperations(t, GARBAGE_RUNS, 1, 2));
});
