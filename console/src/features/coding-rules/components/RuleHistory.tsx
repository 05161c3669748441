import type { Field } from '@svc/client';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { formatDateTime } from '../../../lib/format';
import { useCurrentUser } from '../../auth/session-context';
import { useRuleVersions } from '../api/rules';
import { useConditionNaming } from '../condition-naming';
import { actorWords, versionChange } from '../rule-words';
import { RuleActionsText } from './RuleActionsText';

/** Every version of the rule, newest first: when, by whom, and what it changed from the one before. */
export function RuleHistory({ ruleId, fields }: { ruleId: string; fields: readonly Field[] | undefined }) {
  const me = useCurrentUser();
  const versions = useRuleVersions(ruleId);
  const naming = useConditionNaming(
    (versions.data ?? []).map((v) => v.conditions),
    fields,
  );
  if (versions.isPending) return <Loading label="Loading the rule's history…" />;
  if (versions.isError) return <ErrorMessage title="The rule's history could not be loaded." error={versions.error} />;
  const items = versions.data.map((version, i) => ({
    version,
    change: versionChange(version, versions.data[i - 1], naming),
  }));
  return (
    <ol className="rule-history" reversed>
      {items.reverse().map(({ version, change }) => (
        <li key={version.version}>
          <p>
            <strong>Version {version.version}</strong>, {formatDateTime(version.changed_at)} by{' '}
            {actorWords(version.changed_by, me)}
          </p>
          <ul>
            {change.words.map((words) => (
              <li key={words}>{words}</li>
            ))}
            {change.actions && (
              <li>
                Sets now: <RuleActionsText actions={change.actions} fields={fields} />
              </li>
            )}
          </ul>
        </li>
      ))}
    </ol>
  );
}
