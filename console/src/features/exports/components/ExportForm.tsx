import type { ExportFormat } from '@svc/client';
import { useId, type FormEvent } from 'react';
import {
  CSV_COLUMNS,
  FORMAT_ORDER,
  FORMATS,
  isFormat,
  MAX_IDS,
  type DraftProblems,
  type ExportDraft,
  type Selection,
} from '../export-request';

interface ExportFormProps {
  draft: ExportDraft;
  change: (patch: Partial<ExportDraft>) => void;
  problems: DraftProblems;
  pending: boolean;
  onSubmit: () => void;
}

const SELECTIONS: readonly { value: Selection; label: string }[] = [
  { value: 'ready', label: 'Every record ready for export' },
  { value: 'range', label: 'Records ready for export, by ERP posting date' },
  { value: 'ids', label: 'These records' },
];

/** The field's error under it, named by the input's aria-describedby. */
function Problem({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <p className="field-error" id={id}>
      {text}
    </p>
  ) : null;
}

const described = (hintId: string | null, errorId: string, text: string | undefined) => ({
  'aria-invalid': text ? true : undefined,
  'aria-describedby': [hintId, text ? errorId : null].filter(Boolean).join(' ') || undefined,
});

/** What to export and how: a format, a selection, the generic CSV's columns. */
export function ExportForm({ draft, change, problems, pending, onSubmit }: ExportFormProps) {
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form aria-label="Export" className="form-stack" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={`${id}-format`}>Format</label>
        <select
          id={`${id}-format`}
          value={draft.format}
          aria-describedby={`${id}-format-hint`}
          onChange={(e) => {
            const value = e.target.value;
            if (isFormat(value)) change({ format: value satisfies ExportFormat });
          }}
        >
          {FORMAT_ORDER.map((format) => (
            <option key={format} value={format}>
              {FORMATS[format].label}
            </option>
          ))}
        </select>
        <p className="hint" id={`${id}-format-hint`}>
          {FORMATS[draft.format].hint} Every entry carries its record id.
        </p>
      </div>

      <fieldset>
        <legend>Records</legend>
        <div className="toggle-group">
          {SELECTIONS.map((s) => (
            <label key={s.value} className="check">
              <input
                type="radio"
                name={`${id}-selection`}
                value={s.value}
                checked={draft.selection === s.value}
                onChange={() => change({ selection: s.value })}
              />
              <span>{s.label}</span>
            </label>
          ))}
        </div>
        {draft.selection === 'range' && (
          <div className="inline-fields">
            <div className="field">
              <label htmlFor={`${id}-from`}>Posted from</label>
              <input
                id={`${id}-from`}
                type="date"
                value={draft.postedFrom}
                onChange={(e) => change({ postedFrom: e.target.value })}
                {...described(null, `${id}-range-error`, problems.range)}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-to`}>Posted to</label>
              <input
                id={`${id}-to`}
                type="date"
                value={draft.postedTo}
                onChange={(e) => change({ postedTo: e.target.value })}
                {...described(null, `${id}-range-error`, problems.range)}
              />
            </div>
          </div>
        )}
        <Problem id={`${id}-range-error`} text={problems.range} />
        {draft.selection === 'ids' && (
          <div className="field">
            <label htmlFor={`${id}-ids`}>Record ids</label>
            <textarea
              id={`${id}-ids`}
              rows={4}
              value={draft.ids}
              onChange={(e) => change({ ids: e.target.value })}
              {...described(`${id}-ids-hint`, `${id}-ids-error`, problems.ids)}
            />
            <p className="hint" id={`${id}-ids-hint`}>
              Up to {MAX_IDS}, separated by commas, spaces or lines. Each must be ready for export.
            </p>
          </div>
        )}
        <Problem id={`${id}-ids-error`} text={problems.ids} />
      </fieldset>

      {draft.format === 'csv' && (
        <fieldset aria-describedby={`${id}-columns-hint`}>
          <legend>Columns</legend>
          <p className="hint" id={`${id}-columns-hint`}>
            In this order; the reference, the record id, is always the first.
          </p>
          <div className="filters-checks">
            {CSV_COLUMNS.map(({ column, label }) => (
              <label key={column} className="check">
                <input
                  type="checkbox"
                  checked={column === 'reference' || draft.columns.includes(column)}
                  disabled={column === 'reference'}
                  onChange={(e) =>
                    change({
                      columns: e.target.checked
                        ? [...draft.columns, column]
                        : draft.columns.filter((c) => c !== column),
                    })
                  }
                />
                <span>{label}</span>
              </label>
            ))}
          </div>
          <div className="field">
            <label htmlFor={`${id}-dimensions`}>Dimension columns</label>
            <input
              id={`${id}-dimensions`}
              value={draft.dimensions}
              placeholder="department, location"
              onChange={(e) => change({ dimensions: e.target.value })}
              {...described(`${id}-dimensions-hint`, `${id}-columns-error`, problems.columns)}
            />
            <p className="hint" id={`${id}-dimensions-hint`}>
              Fields other than the GL account, by key (a field&rsquo;s name in lower case, dashes for spaces).
            </p>
          </div>
          <Problem id={`${id}-columns-error`} text={problems.columns} />
        </fieldset>
      )}

      <div className="button-row">
        <button type="submit" className="button-primary" disabled={pending}>
          {pending ? 'Preparing the file…' : 'Download'}
        </button>
      </div>
    </form>
  );
}
