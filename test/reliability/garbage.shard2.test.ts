import { it, vi } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { knob } from '../support/knobs.js';
import { fuzzOperations } from '../support/reliability-fuzz.js';

/** The second shard of garbage.test.ts's fuzzing of the authenticated operations (same knob, same checks). */
const RUNS = knob('GARBAGE_RUNS', 200);
vi.setConfig({ testTimeout: Math.max(900_000, RUNS * 4500) });

describeEachDialect('garbage (fast-check), second shard', (t) => {
  it('answers every garbage request of the authenticated operations (second of two shards) below 500, in the error shape, changing nothing', () =>
    fuzzOperations(t, RUNS, 1, 2));
});
