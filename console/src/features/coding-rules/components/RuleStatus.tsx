import type { CodingRule, Field } from '@svc/client';
import { fieldNameOf, ValueName } from './RuleActionsText';

type Problem = CodingRule['problems'][number];

function ProblemWords({ problem, fields }: { problem: Problem; fields: readonly Field[] | undefined }) {
  const field = fieldNameOf(fields, problem.field_id);
  const value = <ValueName fieldId={problem.field_id} svcId={problem.svc_id} />;
  switch (problem.reason) {
    case 'NOT_FOUND':
      return <>Its value of {field} was deleted: choose another.</>;
    case 'VALUE_DISABLED':
      return (
        <>
          Its value {value} of {field} is disabled: enable it, or choose another.
        </>
      );
    case 'FIELD_DISABLED':
      return <>The field {field} is disabled: enable it, or take it out of the rule.</>;
    default:
      return (
        <>
          {field}: {problem.message}
        </>
      );
  }
}

/** Active, disabled, or broken with why (a broken rule applies nowhere until its values can be set again). */
export function RuleStatus({ rule, fields }: { rule: CodingRule; fields: readonly Field[] | undefined }) {
  if (rule.status === 'ACTIVE') return <span className="badge badge-active">Active</span>;
  if (rule.status === 'DISABLED') return <span className="badge badge-disabled">Disabled</span>;
  return (
    <div>
      <span className="badge badge-failed">Broken</span>
      <ul className="rule-problems">
        {rule.problems.map((problem) => (
          <li key={`${problem.path}`}>
            <ProblemWords problem={problem} fields={fields} />
          </li>
        ))}
      </ul>
    </div>
  );
}
