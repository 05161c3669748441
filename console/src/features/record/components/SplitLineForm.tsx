import { useState } from 'react';
import { formatMoney } from '../../../lib/format';
import type { LineItem } from '../lines';
import { currencyDigits, equalParts, fromMinor, toMinor } from '../split-parts';

/** A line's split: two or more parts (amounts in the record's currency) that must add up exactly to the line. */
export function SplitLineForm({
  line,
  number,
  busy,
  blocked,
  onSplit,
  onCancel,
}: {
  line: LineItem;
  number: number;
  busy: boolean;
  /** Unsaved coding on the page: a split would drop it (the hint above the lines says so). */
  blocked: boolean;
  onSplit: (amounts: number[]) => void;
  onCancel: () => void;
}) {
  const { currency } = line.amount;
  const digits = currencyDigits(currency);
  const total = toMinor(line.amount.amount.toFixed(digits), digits) ?? 0;
  const [parts, setParts] = useState<string[]>(() => equalParts(total, 2).map((p) => fromMinor(p, digits)));
  const minors = parts.map((p) => toMinor(p, digits));
  const invalid = minors.findIndex((m) => m === null);
  const assigned = minors.reduce<number>((sum, m) => sum + (m ?? 0), 0);
  const left = total - assigned;
  const ready = invalid < 0 && left === 0 && parts.length >= 2;
  const title = `Split line ${number} (${formatMoney(line.amount)})`;

  return (
    <form
      className="split-form"
      aria-label={title}
      onSubmit={(event) => {
        event.preventDefault();
        if (ready && !busy && !blocked) onSplit(minors.map((m) => Number(fromMinor(m!, digits))));
      }}
    >
      <p className="split-form-title">{title} into parts that add up to it:</p>
      <ol className="split-parts">
        {parts.map((part, i) => (
          <li key={i}>
            <label>
              Part {i + 1} amount ({currency})
              <input
                inputMode="decimal"
                value={part}
                aria-invalid={minors[i] === null}
                onChange={(event) => setParts(parts.map((p, k) => (k === i ? event.target.value : p)))}
              />
            </label>
            {parts.length > 2 && (
              <button
                type="button"
                aria-label={`Remove part ${i + 1}`}
                onClick={() => setParts(parts.filter((_, k) => k !== i))}
              >
                Remove
              </button>
            )}
          </li>
        ))}
      </ol>
      <p role="status" className={ready ? 'hint' : 'hint hint-warning'}>
        {invalid >= 0
          ? `Part ${invalid + 1} is not an amount above zero with at most ${digits} decimals.`
          : left === 0
            ? 'The parts add up to the line.'
            : left > 0
              ? `Left to assign: ${fromMinor(left, digits)} ${currency}.`
              : `The parts exceed the line by ${fromMinor(-left, digits)} ${currency}.`}
      </p>
      <div className="form-actions">
        <button
          type="button"
          disabled={parts.length >= 100}
          onClick={() => setParts([...parts, left > 0 ? fromMinor(left, digits) : ''])}
        >
          Add a part
        </button>
        <button type="submit" className="button-primary" disabled={!ready || busy || blocked}>
          {busy ? 'Splitting…' : `Split line ${number}`}
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
