import type { CodingRule, Field } from '@svc/client';
import { useSessionScopes } from '../../auth/api/session';
import { useState } from 'react';
import { Link } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { RefreshFailed } from '../../../components/RefreshFailed';
import { PageHeading } from '../../../components/PageHeading';
import { formatDateTime } from '../../../lib/format';
import { isApiError, isGone } from '../../../lib/errors';
import { useCurrentUser } from '../../auth/session-context';
import { useAllFields } from '../../fields/api/fields';
import { useCodingFields } from '../../record/api/record';
import { usePreviewRule, useRule, useUpdateRule, useValueNames } from '../api/rules';
import { RuleActionsText } from '../components/RuleActionsText';
import { RuleForm } from '../components/RuleForm';
import { RuleHistory } from '../components/RuleHistory';
import { RulePreviewResult } from '../components/RulePreviewResult';
import { RuleStatus } from '../components/RuleStatus';
import { canManageRules } from '../roles';
import { actorWords, conditionWords } from '../rule-words';
import { draftOfRule, lineValueRefs } from '../rule-draft';
import { useConditionNaming } from '../condition-naming';
import '../coding-rules.css';

/** An admin's edit of the rule at the version read; a conflict says so and reloads on demand. */
function EditRule({ rule, onReload }: { rule: CodingRule; onReload: () => Promise<CodingRule | undefined> }) {
  const [base, setBase] = useState(rule);
  const [generation, setGeneration] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const fields = useCodingFields();
  const allFields = useAllFields();
  const names = useValueNames([...base.actions.field_values, ...lineValueRefs(base.conditions)]);
  const update = useUpdateRule();
  const conflict = isApiError(update.error, 'VERSION_CONFLICT');
  const reload = async () => {
    const current = await onReload();
    // Not read again: the notice and the form stay (the page says the read failed), to try again.
    if (!current) return;
    update.reset();
    setBase(current);
    setGeneration((g) => g + 1);
  };
  if (fields.isPending || names.pending) return <Loading label="Loading the rule's fields and values…" />;
  if (fields.data === undefined) return <ErrorMessage title="The fields could not be loaded." error={fields.error} />;
  return (
    <section aria-labelledby="rule-edit-title">
      <h2 id="rule-edit-title">Change the rule</h2>
      <RefreshFailed what="The fields" queries={[fields]} />
      {conflict && (
        <div className="notice notice-error" role="alert">
          <p className="notice-title">Someone else changed this rule since you opened it.</p>
          <p>Nothing was saved. Reload the rule to see its current version; changes you had not saved will be lost.</p>
          <button type="button" className="button-primary" onClick={() => void reload()}>
            Reload
          </button>
        </div>
      )}
      {notice && (
        <p className="notice notice-success" role="status">
          {notice}
        </p>
      )}
      <RuleForm
        key={generation}
        initial={draftOfRule(base, names.names)}
        fields={fields.data}
        allFields={allFields.data}
        submitLabel="Save changes"
        pendingLabel="Saving…"
        pending={update.isPending}
        saveError={conflict ? null : update.error}
        onResetSave={() => update.reset()}
        onSave={(name, body) => {
          setNotice(null);
          update.mutate(
            { id: base.id, changes: { version: base.version, name, ...body } },
            {
              onSuccess: (saved) => {
                setBase(saved);
                setNotice(`Saved: the rule is now at version ${saved.version}.`);
              },
            },
          );
        }}
      />
    </section>
  );
}

/** The rule as it is, and a preview of what it would change now (for those who may not change it). */
function ShowRule({ rule, fields }: { rule: CodingRule; fields: readonly Field[] | undefined }) {
  const preview = usePreviewRule();
  const naming = useConditionNaming([rule.conditions], fields);
  return (
    <section className="card" aria-labelledby="rule-show-title">
      <h2 id="rule-show-title">What it does</h2>
      <p>When a record matches:</p>
      <ul className="rule-conditions">
        {conditionWords(rule.conditions, naming).map((words) => (
          <li key={words}>{words}</li>
        ))}
      </ul>
      <p>it sets on each line:</p>
      <RuleActionsText actions={rule.actions} fields={fields} />
      <div className="button-row">
        <button
          type="button"
          disabled={preview.isPending}
          onClick={() => preview.mutate({ rule: { conditions: rule.conditions, actions: rule.actions } })}
        >
          {preview.isPending ? 'Previewing…' : 'Preview'}
        </button>
      </div>
      {preview.isError && <ErrorMessage title="The rule could not be previewed." error={preview.error} />}
      {preview.data && <RulePreviewResult preview={preview.data} fields={fields} />}
    </section>
  );
}

/** One rule: its status, its change (admins) or a preview (others), and its history. */
export function RuleRoute({ id }: { id: string }) {
  const user = useCurrentUser();
  const scopes = useSessionScopes();
  const rule = useRule(id);
  const allFields = useAllFields();
  if (rule.isPending) {
    return (
      <>
        <PageHeading title="Coding rule" />
        <Loading label="Loading the rule…" />
      </>
    );
  }
  if (rule.data === undefined || isGone(rule.error)) {
    const missing = isGone(rule.error);
    return (
      <>
        <PageHeading title="Coding rule" />
        <ErrorMessage
          title={missing ? 'This coding rule does not exist.' : 'The rule could not be loaded.'}
          error={rule.error}
        >
          <p>
            <Link href="/coding-rules">See the account&rsquo;s rules</Link>
          </p>
        </ErrorMessage>
      </>
    );
  }
  const current = rule.data;
  return (
    <>
      <p>
        <Link href="/coding-rules" className="back-link">
          ← Coding rules
        </Link>
      </p>
      <PageHeading title={current.name} />
      <RefreshFailed what="The rule" queries={[rule]} />
      <div className="field-summary">
        <RuleStatus rule={current} fields={allFields.data} />
        <p className="muted">
          Version {current.version}, saved {formatDateTime(current.updated_at)} by{' '}
          {actorWords(current.updated_by, user)}
        </p>
      </div>
      {canManageRules(scopes) ? (
        <EditRule
          rule={current}
          onReload={async () => {
            const answer = await rule.refetch();
            return answer.isError ? undefined : answer.data;
          }}
        />
      ) : (
        <ShowRule rule={current} fields={allFields.data} />
      )}
      <section className="card" aria-labelledby="rule-history-title">
        <h2 id="rule-history-title">History</h2>
        <RuleHistory ruleId={id} fields={allFields.data} />
      </section>
    </>
  );
}
