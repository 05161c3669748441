import type { CodingRule } from '@svc/client';
import { useSessionScopes } from '../../auth/api/session';
import { useState } from 'react';
import { Link } from 'wouter';
import { useHistoryState } from 'wouter/use-browser-location';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { Loading } from '../../../components/Loading';
import { PageHeading } from '../../../components/PageHeading';
import { isApiError } from '../../../lib/errors';
import { useAllFields } from '../../fields/api/fields';
import { useDeleteRule, useReorderRules, useRules, useUpdateRule } from '../api/rules';
import { ApplyRules } from '../components/ApplyRules';
import { RulesTable, type RuleWrites } from '../components/RulesTable';
import { canManageRules, canSeeRules } from '../roles';
import '../coding-rules.css';

const CONFLICT =
  'Someone else changed the rules since this list was loaded, so that change was not saved. The list now shows ' +
  'the rules as they are: check it and try again.';

function RulesScreen({ mayWrite }: { mayWrite: boolean }) {
  const rules = useRules();
  const fields = useAllFields();
  const update = useUpdateRule();
  const reorder = useReorderRules();
  const remove = useDeleteRule();
  const [conflict, setConflict] = useState(false);
  // A rule just created arrives here with its words in the history state.
  const saved = useHistoryState<{ saved?: unknown } | null>()?.saved;
  const [notice, setNotice] = useState<string | null>(typeof saved === 'string' ? saved : null);
  const [failure, setFailure] = useState<{ title: string; error: unknown } | null>(null);

  const started = () => {
    setConflict(false);
    setNotice(null);
    setFailure(null);
  };
  const failed = (title: string) => (error: unknown) => {
    if (isApiError(error, 'VERSION_CONFLICT')) {
      setConflict(true);
      void rules.refetch();
    } else setFailure({ title, error });
  };

  const writes: RuleWrites = {
    busy: update.isPending || reorder.isPending || remove.isPending,
    deletingId: remove.isPending ? (remove.variables ?? null) : null,
    enabling:
      update.isPending && update.variables.changes.enabled !== undefined
        ? { id: update.variables.id, enabled: update.variables.changes.enabled }
        : null,
    onEnabled: (rule: CodingRule, enabled: boolean) => {
      started();
      update.mutate(
        { id: rule.id, changes: { version: rule.version, enabled } },
        {
          onSuccess: (saved) => setNotice(`${saved.name} is ${enabled ? 'enabled' : 'disabled'}.`),
          onError: failed(`${rule.name} was not ${enabled ? 'enabled' : 'disabled'}.`),
        },
      );
    },
    onMove: (index: number, by: -1 | 1) => {
      const list = rules.data;
      const rule = list?.[index];
      if (!list || !rule || !list[index + by]) return;
      started();
      const ordered = [...list];
      ordered.splice(index, 1);
      ordered.splice(index + by, 0, rule);
      reorder.mutate(ordered, {
        onSuccess: () => setNotice(`${rule.name} is now number ${index + by + 1} in precedence.`),
        onError: failed(`${rule.name} was not moved.`),
      });
    },
    onDelete: (rule: CodingRule) => {
      started();
      remove.mutate(rule.id, {
        onSuccess: () => setNotice(`${rule.name} is deleted.`),
        onError: failed(`${rule.name} was not deleted.`),
      });
    },
  };

  return (
    <section aria-labelledby="rules-title" className="rules-list">
      <h2 id="rules-title">Rules, in precedence order</h2>
      <p className="hint">
        For each line and field, the first matching rule that sets the field decides its value; rules below it may still
        set other fields.
      </p>
      {conflict && (
        <div className="notice notice-error" role="alert">
          <p className="notice-title">{CONFLICT}</p>
        </div>
      )}
      {failure && <ErrorMessage title={failure.title} error={failure.error} />}
      {notice && (
        <p className="notice notice-success" role="status">
          {notice}
        </p>
      )}
      {rules.isPending && <Loading label="Loading the coding rules…" />}
      {rules.isError && (
        <ErrorMessage title="The coding rules could not be loaded." error={rules.error}>
          <button type="button" onClick={() => void rules.refetch()}>
            Try again
          </button>
        </ErrorMessage>
      )}
      {rules.data && rules.data.length === 0 && (
        <EmptyState title="The account has no coding rules yet.">
          {mayWrite && <p>Create one, or open a coded record and choose “Rule from this record”.</p>}
        </EmptyState>
      )}
      {rules.data && rules.data.length > 0 && (
        <RulesTable rules={rules.data} fields={fields.data} writes={mayWrite ? writes : null} />
      )}
    </section>
  );
}

/** The account's coding rules: everyone who reviews sees them and previews them; an admin changes and applies them. */
export function CodingRulesRoute() {
  const scopes = useSessionScopes();
  const mayWrite = canManageRules(scopes);
  return (
    <>
      <PageHeading title="Coding rules" />
      <p className="hint">
        A coding rule codes the records it matches before anyone looks at them, at ingestion and when applied here. Each
        record&rsquo;s history names the rule and version that set each value.
      </p>
      {!canSeeRules(scopes) ? (
        <p className="notice notice-info">Only bookkeepers and account admins see the account&rsquo;s coding rules.</p>
      ) : (
        <>
          {mayWrite ? (
            <div className="button-row">
              <Link href="/coding-rules/new" className="button-link button-primary">
                New rule
              </Link>
            </div>
          ) : (
            <p className="notice notice-info">
              Only an account admin creates, changes and applies coding rules. You can open a rule to preview what it
              would change.
            </p>
          )}
          <RulesScreen mayWrite={mayWrite} />
          {mayWrite && <ApplyRules />}
        </>
      )}
    </>
  );
}
