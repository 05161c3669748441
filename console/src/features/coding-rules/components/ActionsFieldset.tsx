import type { Field } from '@svc/client';
import { useId } from 'react';
import { LineCodingPicker } from '../../record/components/LineCodingPicker';
import type { Refusal } from '../refusals';
import type { RuleDraft, ValueChoice } from '../rule-draft';
import { fieldNameOf } from './RuleActionsText';
import { InputError, invalidProps } from './InputError';

interface ActionsProps {
  draft: RuleDraft;
  /** The fields a line can be coded with (not disabled), in the account's order. */
  fields: readonly Field[];
  /** Every field, disabled ones included (to name a field the rule sets that cannot be chosen any more). */
  allFields: readonly Field[] | undefined;
  change: (patch: Partial<RuleDraft>) => void;
  errors: Refusal['byInput'];
}

/** What the rule sets on each economic line: a value per field (the record page's type-ahead), and a memo. */
export function ActionsFieldset({ draft, fields, allFields, change, errors }: ActionsProps) {
  const id = useId();
  const shown = new Set(fields.map((f) => f.svc_id));
  const hidden = Object.entries(draft.values).filter(([fieldId, choice]) => choice && !shown.has(fieldId));
  const setValue = (fieldId: string, choice: ValueChoice | null) =>
    change({ values: { ...draft.values, [fieldId]: choice } });
  return (
    <fieldset>
      <legend>Then set on each line</legend>
      <p className="hint" id={`${id}-hint`}>
        Type to search a field&rsquo;s values, then pick one; leave a field empty for the rule not to set it.
      </p>
      <InputError id={`${id}-actions-error`} messages={errors.actions} />
      <div className="coding-pickers">
        {fields.map((field) => {
          const messages = errors[`value:${field.svc_id}`];
          const errorId = `${id}-${field.svc_id}-error`;
          return (
            <div key={field.svc_id}>
              <LineCodingPicker
                fieldId={field.svc_id}
                fieldName={field.name}
                value={draft.values[field.svc_id] ?? null}
                onChange={(choice) => setValue(field.svc_id, choice)}
                hintId={`${id}-hint`}
                {...(messages ? { errorId } : {})}
              />
              <InputError id={errorId} messages={messages} />
            </div>
          );
        })}
      </div>
      {hidden.map(([fieldId, choice]) => (
        <div key={fieldId} className="button-row">
          <span>
            {fieldNameOf(allFields, fieldId)} → {choice?.label} (a field that can no longer code lines)
          </span>
          <button type="button" onClick={() => setValue(fieldId, null)}>
            Take it out
          </button>
          <InputError id={`${id}-${fieldId}-error`} messages={errors[`value:${fieldId}`]} />
        </div>
      ))}
      <div className="field rule-memo">
        <label htmlFor={`${id}-memo`}>Memo to set (on lines that have none)</label>
        <input
          id={`${id}-memo`}
          value={draft.memo}
          maxLength={1000}
          onChange={(e) => change({ memo: e.target.value })}
          {...invalidProps(`${id}-memo-error`, errors.memo)}
        />
        <InputError id={`${id}-memo-error`} messages={errors.memo} />
      </div>
    </fieldset>
  );
}
