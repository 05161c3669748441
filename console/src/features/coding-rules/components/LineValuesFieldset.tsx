import type { Field } from '@svc/client';
import { useId, useState } from 'react';
import { LineCodingPicker } from '../../record/components/LineCodingPicker';
import type { Refusal } from '../refusals';
import type { LineValuesDraft, RuleDraft } from '../rule-draft';
import { fieldNameOf } from './RuleActionsText';
import { InputError } from './InputError';

interface LineValuesProps {
  lineValues: readonly LineValuesDraft[];
  /** The fields a line can be coded with; `allFields` names the others. */
  fields: readonly Field[];
  allFields: readonly Field[] | undefined;
  change: (patch: Partial<RuleDraft>) => void;
  errors: Refusal['byInput'];
}

/**
 * "A line's Department is Sales": per field, the values some economic line must carry one of (as the record is
 * before rules apply). A field once per rule; values picked with the same type-ahead as the actions'.
 */
export function LineValuesFieldset({ lineValues, fields, allFields, change, errors }: LineValuesProps) {
  const id = useId();
  // Each pick remounts the picker, so that its box is empty for the next value.
  const [picks, setPicks] = useState(0);
  const set = (next: LineValuesDraft[]) => change({ lineValues: next });
  const update = (key: number, patch: Partial<LineValuesDraft>) =>
    set(lineValues.map((entry) => (entry.key === key ? { ...entry, ...patch } : entry)));
  const used = new Set(lineValues.map((entry) => entry.fieldId));
  const free = fields.filter((f) => !used.has(f.svc_id));
  const add = () =>
    set([
      ...lineValues,
      { key: Math.max(-1, ...lineValues.map((e) => e.key)) + 1, fieldId: free[0]?.svc_id ?? '', values: [] },
    ]);
  return (
    <fieldset aria-describedby={`${id}-hint`}>
      <legend>A line&rsquo;s value</legend>
      <p className="hint" id={`${id}-hint`}>
        Some line of the record carries one of the values picked (as the record is before rules apply). Each field
        listed must match.
      </p>
      {lineValues.map((entry, index) => {
        const name = entry.fieldId === '' ? 'a field' : fieldNameOf(allFields ?? fields, entry.fieldId);
        const number = index + 1;
        const choosable = fields.filter((f) => f.svc_id === entry.fieldId || !used.has(f.svc_id));
        const known = choosable.some((f) => f.svc_id === entry.fieldId);
        return (
          <div key={entry.key} className="rule-line-values" role="group" aria-label={`Line condition ${number}`}>
            <div className="field">
              <label htmlFor={`${id}-${entry.key}-field`}>Field of line condition {number}</label>
              <select
                id={`${id}-${entry.key}-field`}
                value={entry.fieldId}
                onChange={(e) => update(entry.key, { fieldId: e.target.value, values: [] })}
              >
                {!known && <option value={entry.fieldId}>{name}</option>}
                {choosable.map((f) => (
                  <option key={f.svc_id} value={f.svc_id}>
                    {f.name}
                  </option>
                ))}
              </select>
            </div>
            {entry.values.length > 0 && (
              <ul className="rule-chosen-values" aria-label={`Values of line condition ${number}`}>
                {entry.values.map((v) => (
                  <li key={v.svc_id}>
                    <span>{v.label}</span>{' '}
                    <button
                      type="button"
                      className="button-quiet"
                      onClick={() => update(entry.key, { values: entry.values.filter((x) => x.svc_id !== v.svc_id) })}
                    >
                      Remove {v.label}
                    </button>
                  </li>
                ))}
              </ul>
            )}
            {entry.fieldId !== '' && (
              <LineCodingPicker
                key={`${entry.fieldId}-${picks}`}
                fieldId={entry.fieldId}
                fieldName={`A line's ${name}`}
                value={null}
                hintId={`${id}-hint`}
                onChange={(choice) => {
                  if (choice && !entry.values.some((v) => v.svc_id === choice.svc_id)) {
                    update(entry.key, { values: [...entry.values, choice] });
                  }
                  setPicks((p) => p + 1);
                }}
              />
            )}
            <div className="button-row">
              <button type="button" onClick={() => set(lineValues.filter((e) => e.key !== entry.key))}>
                Remove line condition {number}
              </button>
            </div>
          </div>
        );
      })}
      <InputError id={`${id}-error`} messages={errors.lineValues} />
      {free.length > 0 && (
        <div className="button-row">
          <button type="button" onClick={add}>
            Add a line condition
          </button>
        </div>
      )}
    </fieldset>
  );
}
