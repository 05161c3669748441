import { useId } from 'react';
import { humanize } from '../../../lib/format';
import { RECORD_TYPES } from '../../../lib/labels';
import type { PolicyProblems, PolicyRow } from '../policy-draft';

interface Props {
  row: PolicyRow;
  index: number;
  mayWrite: boolean;
  problems: PolicyProblems['rows'][number] | undefined;
  onChange: (row: PolicyRow) => void;
  onRemove: () => void;
}

/** The words of a refusal next to its input; its id is in the input's aria-describedby. */
function Problem({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <p className="field-error" id={id}>
      {messages.join(' ')}
    </p>
  );
}

const invalid = (id: string, messages: string[] | undefined) =>
  messages && messages.length > 0 ? { 'aria-invalid': true, 'aria-describedby': id } : {};

/** One rule of the receipt policy: its currency, its amount (major units) and its record types. */
export function PolicyRowFields({ row, index, mayWrite, problems, onChange, onRemove }: Props) {
  const id = useId();
  const n = index + 1;
  return (
    <fieldset className="policy-row">
      <legend>Rule {n}</legend>
      <div className="field">
        <label htmlFor={`${id}-currency`}>Currency, rule {n}</label>
        <input
          id={`${id}-currency`}
          value={row.currency}
          maxLength={3}
          size={4}
          readOnly={!mayWrite}
          autoComplete="off"
          onChange={(e) => onChange({ ...row, currency: e.target.value })}
          {...invalid(`${id}-currency-error`, problems?.currency)}
        />
        <Problem id={`${id}-currency-error`} messages={problems?.currency} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-above`}>Receipt required above, rule {n}</label>
        <input
          id={`${id}-above`}
          value={row.above}
          inputMode="decimal"
          readOnly={!mayWrite}
          autoComplete="off"
          onChange={(e) => onChange({ ...row, above: e.target.value })}
          {...invalid(`${id}-above-error`, problems?.above)}
        />
        <Problem id={`${id}-above-error`} messages={problems?.above} />
      </div>
      <fieldset aria-describedby={problems?.recordTypes ? `${id}-types-error` : undefined}>
        <legend>Record types, rule {n}</legend>
        <div className="policy-types">
          {RECORD_TYPES.map((type) => (
            <label key={type} className="check">
              <input
                type="checkbox"
                checked={row.recordTypes.includes(type)}
                disabled={!mayWrite}
                onChange={(e) =>
                  onChange({
                    ...row,
                    recordTypes: e.target.checked
                      ? RECORD_TYPES.filter((t) => t === type || row.recordTypes.includes(t))
                      : row.recordTypes.filter((t) => t !== type),
                  })
                }
              />
              <span>{humanize(type)}</span>
            </label>
          ))}
        </div>
        <Problem id={`${id}-types-error`} messages={problems?.recordTypes} />
      </fieldset>
      {mayWrite && (
        <div className="button-row">
          <button type="button" onClick={onRemove}>
            Remove rule {n}
          </button>
        </div>
      )}
    </fieldset>
  );
}
