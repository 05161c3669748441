import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each file took in a measured run (scripts/test-durations.mjs writes it from vitest's JSON report). */
const DURATIONS: Record<string, number> = JSON.parse(
  fs.readFileSync(new URL('./durations.json', import.meta.url), 'utf8'),
);

/** Projects whose files take longest start first. */
const FIRST = ['reliability-inprocess', 'console', 'sdk', 'api', 'unit'];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * The order files start in: by group (the config's `sequence.groupOrder`), then project, projects whose files take
 * longest first (a worker serves one project: a file of another project waits for a new worker, which imports the
 * app anew; a run ordered by length alone, projects mixed, took 8% longer), then within a project the longest file
 * first. Files overlap (several workers), and a run ends when its last file does: a long file that starts late runs
 * alone at the end while the other workers wait (a fresh clone has no timings of its own, and vitest then starts
 * larger files first: webhooks.served.test.ts, 42 s, started 568 s into a 610 s group). The lengths are
 * test/support/durations.json's; a file it does not name yet counts as a file of median length. On a machine that
 * ran the suite before, files that failed in its last run start first within their project, as vitest's own order
 * has them (a fresh clone, CI's, has no such results).
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const typical = median(Object.values(DURATIONS));
    const seconds = (spec: TestSpecification) => DURATIONS[path.relative(root, spec.moduleId)] ?? typical;
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder ?? 0;
    const rank = (spec: TestSpecification) => {
      const at = FIRST.indexOf(spec.project.name);
      return at === -1 ? FIRST.length : at;
    };
    const failedLast = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${path.relative(root, spec.moduleId)}`)?.failed ? 0 : 1;
    return [...files].sort(
      (a, b) => group(a) - group(b) || rank(a) - rank(b) || failedLast(a) - failedLast(b) || seconds(b) - seconds(a),
    );
  }
}
