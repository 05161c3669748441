import type { AccountingRecord, CodeLinesRequest, Field } from '@svc/client';
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { formatMoney } from '../../../lib/format';
import { LineCodingPicker, type CodingChoice } from './LineCodingPicker';

/** The coding being edited: line id → field id → the chosen value (null: none). */
type Draft = Record<string, Record<string, CodingChoice | null>>;

function draftOf(singleEntry: AccountingRecord, fields: Field[]): Draft {
  return Object.fromEntries(
    singleEntry.line_items.map((line) => [
      line.id,
      Object.fromEntries(
        fields.map((field) => {
          const coded = line.accounting_field_values.find((c) => c.svc_field_id === field.svc_id);
          return [field.svc_id, coded ? { svc_id: coded.svc_field_value_id, label: coded.field_value_name } : null];
        }),
      ),
    ]),
  );
}

const sameChoice = (a: CodingChoice | null | undefined, b: CodingChoice | null | undefined) =>
  (a?.svc_id ?? null) === (b?.svc_id ?? null);

interface CodingFormProps {
  singleEntry: AccountingRecord;
  fields: Field[];
  saving: boolean;
  onSave: (input: CodeLinesRequest) => void;
  onDirtyChange: (dirty: boolean) => void;
}

/**
 * A picker per economic line and field; "Save coding" sends the lines that changed, each with its whole coding
 * (values of fields not shown here, such as disabled ones, are kept as they are), at the version shown.
 */
export function CodingForm({ singleEntry, fields, saving, onSave, onDirtyChange }: CodingFormProps) {
  // The version the edits start from: Save sends it, so that a change made meanwhile by someone else is a
  // VERSION_CONFLICT to show, never overwritten. A newer version read in the background replaces it only while
  // nothing is edited.
  const [base, setBase] = useState(singleEntry);
  const initial = useMemo(() => draftOf(base, fields), [base, fields]);
  const [draft, setDraft] = useState<Draft>(initial);
  const hintId = useId();
  const shown = new Set(fields.map((f) => f.svc_id));

  const changedLines = base.line_items.filter((line) =>
    fields.some((field) => !sameChoice(draft[line.id]?.[field.svc_id], initial[line.id]?.[field.svc_id])),
  );
  const dirty = changedLines.length > 0;
  if (!dirty && singleEntry.version !== base.version) {
    setBase(singleEntry);
    setDraft(draftOf(singleEntry, fields));
  }
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);

  const choose = (lineId: string, fieldId: string, choice: CodingChoice | null) =>
    setDraft((d) => ({ ...d, [lineId]: { ...d[lineId], [fieldId]: choice } }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    onSave({
      version: base.version,
      lines: changedLines.map((line) => ({
        line_id: line.id,
        field_values: [
          ...fields.flatMap((field) => {
            const choice = draft[line.id]?.[field.svc_id];
            return choice ? [{ field_id: field.svc_id, svc_id: choice.svc_id }] : [];
          }),
          ...line.accounting_field_values
            .filter((c) => !shown.has(c.svc_field_id))
            .map((c) => ({ field_id: c.svc_field_id, svc_id: c.svc_field_value_id })),
        ],
      })),
    });
  };

  return (
    <form className="coding-form" onSubmit={submit} aria-label="Coding">
      <p className="hint" id={hintId}>
        Type to search a field&rsquo;s values, then pick one; empty a box to remove that field from the line.
      </p>
      {base.line_items.map((line, index) => (
        <fieldset key={line.id} className="coding-line">
          <legend>
            Line {index + 1}: {formatMoney(line.amount)}
            {line.memo ? ` — ${line.memo}` : ''}
          </legend>
          <div className="coding-pickers">
            {fields.map((field) => (
              <LineCodingPicker
                key={field.svc_id}
                fieldId={field.svc_id}
                fieldName={field.name}
                lineNumber={index + 1}
                value={draft[line.id]?.[field.svc_id] ?? null}
                onChange={(choice) => choose(line.id, field.svc_id, choice)}
                hintId={hintId}
              />
            ))}
          </div>
        </fieldset>
      ))}
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={!dirty || saving}>
          {saving ? 'Saving…' : 'Save coding'}
        </button>
        <button type="button" disabled={!dirty || saving} onClick={() => setDraft(initial)}>
          Discard changes
        </button>
        {dirty && (
          <span className="muted">
            Unsaved changes on {changedLines.length === 1 ? '1 line' : `${changedLines.length} lines`}
          </span>
        )}
      </div>
    </form>
  );
}
