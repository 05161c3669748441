import type { AccountingRecord, CodeLinesRequest, Field, RecordDraft } from '@svc/client';
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { formatMoney } from '../../../lib/format';
import type { DraftContent, DraftStatus } from '../api/drafts';
import type { SuggestionsByCell } from '../api/suggestions';
import { cellsOf, draftContent, sameChoice, withDraft, type Cells } from '../coding-cells';
import { DraftRestoredNotice, DraftStatusWords } from './DraftRestoredNotice';
import { LineCodingPicker, type CodingChoice } from './LineCodingPicker';
import { SuggestedValue } from './SuggestedValue';

interface CodingFormProps {
  singleEntry: AccountingRecord;
  fields: Field[];
  saving: boolean;
  onSave: (input: CodeLinesRequest) => void;
  onDirtyChange: (dirty: boolean) => void;
  /** The suggested values of the record's empty cells (at its version). */
  suggestions?: SuggestionsByCell;
  /** The user's draft the form opens on (kept on the server), if any. */
  restored?: RecordDraft | null;
  /** What is unsaved, after each change: kept as the user's draft. */
  onDraftChange?: (content: DraftContent) => void;
  /** How the draft stands on the server (shown while there are changes). */
  draftStatus?: DraftStatus;
  /** The changes were discarded (the draft goes with them). */
  onDiscard?: () => void;
  /** "Accept all suggestions": at the version shown; null when the user may not. */
  acceptAll?: { busy: boolean; onAccept: (version: number) => void } | null;
}

/**
 * A picker per economic line and field; "Save coding" sends the lines that changed, each with its whole coding
 * (values of fields not shown here, such as disabled ones, are kept as they are), at the version shown.
 */
export function CodingForm(props: CodingFormProps) {
  const { singleEntry, fields, saving, onSave, onDirtyChange, suggestions, restored, onDraftChange } = props;
  // The version the edits start from: Save sends it, so that a change made meanwhile by someone else is a
  // VERSION_CONFLICT to show, never overwritten. A newer version read in the background replaces it only while
  // nothing is edited.
  const [base, setBase] = useState(singleEntry);
  const initial = useMemo(() => cellsOf(base, fields), [base, fields]);
  const [cells, setCells] = useState<Cells>(() => (restored ? withDraft(initial, restored) : initial));
  // The restored draft, until it is saved or discarded; its version is the one its edits started from.
  const [shownDraft, setShownDraft] = useState(restored ?? null);
  const hintId = useId();
  const shown = new Set(fields.map((f) => f.svc_id));

  const changedLines = base.line_items.filter((line) =>
    fields.some((field) => !sameChoice(cells[line.id]?.[field.svc_id], initial[line.id]?.[field.svc_id])),
  );
  const dirty = changedLines.length > 0;
  if (!dirty && singleEntry.version !== base.version) {
    setBase(singleEntry);
    setCells(cellsOf(singleEntry, fields));
  }
  if (!dirty && shownDraft) setShownDraft(null);
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);

  const content = draftContent(
    shownDraft?.version ?? base.version,
    base.line_items.map((l) => l.id),
    fields,
    cells,
    initial,
  );
  const contentKey = JSON.stringify(content);
  // Reported when what is unsaved changes (its JSON), not on every render.
  useEffect(() => onDraftChange?.(content), [contentKey, onDraftChange]);

  const choose = (lineId: string, fieldId: string, choice: CodingChoice | null) =>
    setCells((d) => ({ ...d, [lineId]: { ...d[lineId], [fieldId]: choice } }));
  const discard = () => {
    setCells(initial);
    setShownDraft(null);
    props.onDiscard?.();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!dirty) return;
    onSave({
      version: base.version,
      lines: changedLines.map((line) => ({
        line_id: line.id,
        field_values: [
          ...fields.flatMap((field) => {
            const choice = cells[line.id]?.[field.svc_id];
            return choice ? [{ field_id: field.svc_id, svc_id: choice.svc_id }] : [];
          }),
          ...line.accounting_field_values
            .filter((c) => !shown.has(c.svc_field_id))
            .map((c) => ({ field_id: c.svc_field_id, svc_id: c.svc_field_value_id })),
        ],
      })),
    });
  };

  // Suggestions for the version the form shows, in cells still empty.
  const suggestionAt = (lineId: string, fieldId: string) =>
    cells[lineId]?.[fieldId] ? undefined : suggestions?.get(lineId)?.get(fieldId);
  const suggested = base.line_items.reduce(
    (n, line) => n + fields.filter((f) => suggestionAt(line.id, f.svc_id)).length,
    0,
  );

  return (
    <form className="coding-form" onSubmit={submit} aria-label="Coding">
      {shownDraft && <DraftRestoredNotice draft={shownDraft} version={base.version} />}
      <p className="hint" id={hintId}>
        Type to search a field&rsquo;s values, then pick one; empty a box to remove that field from the line.
        {suggested > 0 && ' A greyed suggestion under an empty box puts its value in with one click.'}
      </p>
      {base.line_items.map((line, index) => (
        <fieldset key={line.id} className="coding-line">
          <legend>
            Line {index + 1}: {formatMoney(line.amount)}
            {line.memo ? ` — ${line.memo}` : ''}
          </legend>
          <div className="coding-pickers">
            {fields.map((field) => {
              const suggestion = suggestionAt(line.id, field.svc_id);
              return (
                <div key={field.svc_id} className="coding-cell">
                  <LineCodingPicker
                    fieldId={field.svc_id}
                    fieldName={field.name}
                    lineNumber={index + 1}
                    value={cells[line.id]?.[field.svc_id] ?? null}
                    onChange={(choice) => choose(line.id, field.svc_id, choice)}
                    hintId={hintId}
                  />
                  {suggestion && (
                    <SuggestedValue
                      suggestion={suggestion}
                      lineNumber={index + 1}
                      onAccept={() =>
                        choose(line.id, field.svc_id, { svc_id: suggestion.svc_id, label: suggestion.value })
                      }
                    />
                  )}
                </div>
              );
            })}
          </div>
        </fieldset>
      ))}
      <div className="button-row">
        <button type="submit" className="button-primary" disabled={!dirty || saving}>
          {saving ? 'Saving…' : 'Save coding'}
        </button>
        <button type="button" disabled={!dirty || saving} onClick={discard}>
          Discard changes
        </button>
        {props.acceptAll && suggested > 0 && (
          <button
            type="button"
            disabled={dirty || saving || props.acceptAll.busy}
            aria-describedby={dirty ? `${hintId}-accept` : undefined}
            onClick={() => props.acceptAll?.onAccept(base.version)}
          >
            {props.acceptAll.busy ? 'Accepting…' : 'Accept all suggestions'}
          </button>
        )}
        {dirty && <DraftStatusWords status={props.draftStatus} />}
        {dirty && (
          <span className="muted" id={`${hintId}-accept`}>
            Unsaved changes on {changedLines.length === 1 ? '1 line' : `${changedLines.length} lines`}
            {props.acceptAll && suggested > 0 && ': save or discard them to accept all suggestions'}
          </span>
        )}
      </div>
    </form>
  );
}
