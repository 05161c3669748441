import { describeMissingLines, type RecordProblem } from '../../../lib/errors';

/** Why one record of a bulk move was refused, on its own row: the service's reason in plain words. */
export function RecordProblemText({ id, problem }: { id: string; problem: RecordProblem }) {
  const lines =
    !problem.reason && problem.lines && problem.lines.length > 0 ? ` (${describeMissingLines(problem.lines)})` : '';
  return (
    <p className="row-error" id={id}>
      Not moved: {problem.reason ?? problem.message}
      {lines}
    </p>
  );
}
