import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order files start in. vitest's own order runs the files it has timed longest first, but a fresh clone (CI) has
 * no timings, and it then starts projects in alphabetical order: the long in-process fuzzing files would start last
 * and finish alone. Projects whose files take longest start first; within a project, vitest's order stands.
 */
const FIRST = ['reliability-inprocess', 'console', 'sdk', 'api', 'unit'];

const rank = (spec: TestSpecification) => {
  const at = FIRST.indexOf(spec.project.name);
  return at === -1 ? FIRST.length : at;
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder ?? 0;
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => group(a.spec) - group(b.spec) || rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}
