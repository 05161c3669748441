import type { CodingRule, Field } from '@svc/client';
import { Link } from 'wouter';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { useConditionNaming } from '../condition-naming';
import { conditionWords } from '../rule-words';
import { RuleActionsText } from './RuleActionsText';
import { RuleRowActions } from './RuleRowActions';
import { RuleStatus } from './RuleStatus';

export interface RuleWrites {
  busy: boolean;
  deletingId: string | null;
  /** A change of enabled under way: shown at once, as asked. */
  enabling: { id: string; enabled: boolean } | null;
  onEnabled: (rule: CodingRule, enabled: boolean) => void;
  onMove: (index: number, by: -1 | 1) => void;
  onDelete: (rule: CodingRule) => void;
}

/**
 * The rules in precedence order (the first matching rule that sets a field decides it): what each matches, what
 * it sets, whether it applies; with an admin's controls when `writes` is given.
 */
export function RulesTable({
  rules,
  fields,
  writes,
}: {
  rules: CodingRule[];
  fields: readonly Field[] | undefined;
  writes: RuleWrites | null;
}) {
  const naming = useConditionNaming(
    rules.map((rule) => rule.conditions),
    fields,
  );
  return (
    <ScrollRegion label="Coding rules">
      <table className="data-table">
        <caption className="visually-hidden">Coding rules in precedence order</caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Rule</th>
            <th scope="col">When</th>
            <th scope="col">Sets</th>
            <th scope="col">Status</th>
            {writes && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {rules.map((rule, index) => (
            <tr key={rule.id} className={rule.status === 'DISABLED' ? 'row-disabled' : undefined}>
              <td>{index + 1}</td>
              <td>
                <Link href={`/coding-rules/${encodeURIComponent(rule.id)}`}>{rule.name}</Link>
                <span className="cell-sub">Version {rule.version}</span>
              </td>
              <td>
                <ul className="rule-conditions">
                  {conditionWords(rule.conditions, naming).map((words) => (
                    <li key={words}>{words}</li>
                  ))}
                </ul>
              </td>
              <td>
                <RuleActionsText actions={rule.actions} fields={fields} />
              </td>
              <td>
                <RuleStatus rule={rule} fields={fields} />
              </td>
              {writes && (
                <td className="actions-cell">
                  <RuleRowActions
                    rule={rule}
                    enabled={writes.enabling?.id === rule.id ? writes.enabling.enabled : rule.enabled}
                    first={index === 0}
                    last={index === rules.length - 1}
                    busy={writes.busy}
                    deleting={writes.deletingId === rule.id}
                    onEnabled={(enabled) => writes.onEnabled(rule, enabled)}
                    onMove={(by) => writes.onMove(index, by)}
                    onDelete={() => writes.onDelete(rule)}
                  />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
