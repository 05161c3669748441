import type { Field } from '@svc/client';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ErrorMessage } from '../../../components/ErrorMessage';
import { shownError } from '../../../lib/errors';
import { usePreviewRule } from '../api/rules';
import { refusalOf } from '../refusals';
import { bodyOf, type RuleBody, type RuleDraft } from '../rule-draft';
import { ActionsFieldset } from './ActionsFieldset';
import { ConditionsFieldset } from './ConditionsFieldset';
import { InputError, invalidProps } from './InputError';
import { fieldNameOf } from './RuleActionsText';
import { RulePreviewResult } from './RulePreviewResult';

interface RuleFormProps {
  initial: RuleDraft;
  /** The fields a line can be coded with; `allFields` names the others. */
  fields: readonly Field[];
  allFields: readonly Field[] | undefined;
  submitLabel: string;
  pendingLabel: string;
  pending: boolean;
  /** The save's refusal, if the last save was refused (a version conflict is the page's to show). */
  saveError: unknown;
  onSave: (name: string, body: RuleBody) => void;
  /** Forget the last save's answer (a preview, or an edit, starts anew). */
  onResetSave: () => void;
}

/**
 * A rule's name, conditions and actions; Preview shows what it would change now (nothing written), Save saves it.
 * The service checks the rule (it is the one place where a rule's validity is decided): its refusals are shown
 * next to the inputs they are about, and all of them in a list.
 */
export function RuleForm(props: RuleFormProps) {
  const { initial, fields, allFields, submitLabel, pendingLabel, pending, saveError, onSave, onResetSave } = props;
  const id = useId();
  const [draft, setDraft] = useState(initial);
  const [sent, setSent] = useState<RuleBody>(() => bodyOf(initial));
  const preview = usePreviewRule();
  const change = (patch: Partial<RuleDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const error = saveError ?? preview.error;
  const refusal = error ? refusalOf(error, sent, (fieldId) => fieldNameOf(allFields ?? fields, fieldId)) : null;
  const errors = refusal?.byInput ?? {};

  const runPreview = () => {
    const body = bodyOf(draft);
    setSent(body);
    onResetSave();
    preview.mutate({ rule: body });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = bodyOf(draft);
    setSent(body);
    preview.reset();
    onSave(draft.name.trim(), body);
  };

  return (
    <>
      <form className="form-stack rule-form" onSubmit={submit} aria-label="Coding rule" noValidate>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            value={draft.name}
            maxLength={255}
            required
            onChange={(e) => change({ name: e.target.value })}
            {...invalidProps(`${id}-name-error`, errors.name)}
          />
          <InputError id={`${id}-name-error`} messages={errors.name} />
        </div>
        <ConditionsFieldset draft={draft} fields={fields} allFields={allFields} change={change} errors={errors} />
        <ActionsFieldset draft={draft} fields={fields} allFields={allFields} change={change} errors={errors} />
        {refusal && (
          <div className="notice notice-error" role="alert">
            <p className="notice-title">
              {saveError ? 'The rule was not saved' : 'The rule could not be previewed'}: the service found{' '}
              {refusal.all.length === 1 ? 'a problem' : `${refusal.all.length} problems`}.
            </p>
            <ul>
              {refusal.all.map((words) => (
                <li key={words}>{words}</li>
              ))}
            </ul>
            {shownError(error).requestId && (
              <p className="notice-meta">
                Request id: <code>{shownError(error).requestId}</code>
              </p>
            )}
          </div>
        )}
        {error && !refusal && (
          <ErrorMessage
            title={saveError ? 'The rule was not saved.' : 'The rule could not be previewed.'}
            error={error}
          />
        )}
        <div className="button-row">
          <button type="button" disabled={preview.isPending || pending} onClick={runPreview}>
            {preview.isPending ? 'Previewing…' : 'Preview'}
          </button>
          <button type="submit" className="button-primary" disabled={pending || preview.isPending}>
            {pending ? pendingLabel : submitLabel}
          </button>
          <Link href="/coding-rules">Back to the rules</Link>
        </div>
      </form>
      {preview.data && !preview.isPending && <RulePreviewResult preview={preview.data} fields={allFields ?? fields} />}
    </>
  );
}
