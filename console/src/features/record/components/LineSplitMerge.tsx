import type { AccountingRecord } from '@svc/client';
import { useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatMoney } from '../../../lib/format';
import { describeCoding } from '../lines';
import { SplitLineForm } from './SplitLineForm';

const HEADING = '';

/**
 * The focus was on what is no longer there (it fell to the body) or on a button of `section` that can no longer be
 * used: the user has not moved it elsewhere meanwhile.
 */
function focusLost(section: Element | null): boolean {
  const active = document.activeElement;
  if (active === null || active === document.body) return true;
  return active instanceof HTMLButtonElement && active.disabled && section?.contains(active) === true;
}

/**
 * The economic lines, to split one into parts or merge several into one. A split part keeps the line's coding and
 * memo; a merged line takes the coding all its lines share (docs/accounting.md, "The review workflow").
 *
 * The open split and the selection outlive a new version of the record (a line that is gone drops out of them, and
 * a split whose line was changed in another session closes, saying so); a split or merge made clears both. The focus
 * does not fall to the page: a cancelled split gives it back to its line's button (to the section's heading while
 * that button is disabled); a split or merge made, or a split whose line is gone, to the heading, unless the user
 * had moved it elsewhere.
 */
export function LineSplitMerge({
  heading,
  singleEntry,
  busy,
  blockedBy,
  onSplit,
  onMerge,
}: {
  /** The section's heading (focusable): where the focus goes once the lines it was on have changed. */
  heading: RefObject<HTMLHeadingElement | null>;
  singleEntry: AccountingRecord;
  busy: boolean;
  /** Why the lines cannot change now (unsaved coding), or null. */
  blockedBy: string | null;
  /** Answers whether the split was made (a refusal is said by the page). */
  onSplit: (lineId: string, amounts: number[]) => Promise<boolean>;
  onMerge: (lineIds: string[]) => Promise<boolean>;
}) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  /** The line whose split form is open, and its number when opened (to name it if it goes). */
  const [splitting, setSplitting] = useState<{ id: string; number: number } | null>(null);
  /** Said when an open split was closed because its line was split or merged in another session. */
  const [closedNote, setClosedNote] = useState<string | null>(null);
  const splitButtons = useRef(new Map<string, HTMLButtonElement>());
  const lines = singleEntry.line_items;
  const chosen = lines.filter((line) => selected.has(line.id)).map((line) => line.id);
  const splitLine = lines.find((line) => line.id === splitting?.id);
  /** Where the focus goes once the next drawing is made: a line's split button (its id), or the heading. */
  const focusNext = useRef<string | null>(null);
  const lost = () => focusLost(heading.current?.closest('section') ?? null);
  /** The line whose split this page has sent and not yet heard back from: its line going is this split's doing. */
  const sending = useRef<string | null>(null);
  // The open split's line split or merged away in another session (read in the background): the form is gone, with
  // the focus if it was there; the section says why.
  const gone = splitting !== null && splitLine === undefined ? splitting : null;
  // Layout effects: the focus is placed before the browser hands a key pressed meanwhile to the page's body.
  useLayoutEffect(() => {
    if (gone === null) return;
    setSplitting(null);
    if (sending.current !== gone.id)
      setClosedNote(`Line ${gone.number} was changed in another session: its split was closed.`);
    if (lost()) heading.current?.focus();
  });
  useLayoutEffect(() => {
    const target = focusNext.current;
    if (target === null) return;
    focusNext.current = null;
    const button = target === HEADING ? undefined : splitButtons.current.get(target);
    // A line's button disabled (unsaved coding), or a change made: the heading, unless the user moved the focus.
    if (button && !button.disabled) button.focus();
    else if (lost()) heading.current?.focus();
  });
  /**
   * After a split or merge made: both cleared (the lines are new), the focus placed once the form is gone (a new
   * selection is always a new drawing, so the focus effect runs).
   */
  const made = () => {
    focusNext.current = HEADING;
    setSplitting(null);
    setSelected(new Set());
  };
  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <>
      {blockedBy && <p className="hint">{blockedBy}</p>}
      {closedNote && (
        <p className="hint" role="status">
          {closedNote}
        </p>
      )}
      <ScrollRegion label="Lines to split or merge">
        <table className="data-table">
          <caption className="visually-hidden">Economic lines, to split or merge</caption>
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Select</span>
              </th>
              <th scope="col">Line</th>
              <th scope="col" className="numeric">
                Amount
              </th>
              <th scope="col">Memo</th>
              <th scope="col">Coding</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {lines.map((line, index) => (
              <tr key={line.id}>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select line ${index + 1} to merge`}
                    checked={selected.has(line.id)}
                    disabled={busy || blockedBy !== null}
                    onChange={() => toggle(line.id)}
                  />
                </td>
                <th scope="row">Line {index + 1}</th>
                <td className="numeric nowrap">{formatMoney(line.amount)}</td>
                <td>{line.memo ?? '—'}</td>
                <td>{describeCoding(line.accounting_field_values) ?? <span className="muted">Uncoded</span>}</td>
                <td className="actions-cell">
                  <button
                    type="button"
                    ref={(button) => {
                      if (button) splitButtons.current.set(line.id, button);
                      else splitButtons.current.delete(line.id);
                    }}
                    disabled={busy || blockedBy !== null || splitLine !== undefined}
                    onClick={() => {
                      setClosedNote(null);
                      setSplitting({ id: line.id, number: index + 1 });
                    }}
                  >
                    Split line {index + 1}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <div className="form-actions">
        <button
          type="button"
          disabled={chosen.length < 2 || busy || blockedBy !== null}
          onClick={() => {
            void onMerge(chosen).then((merged) => {
              if (merged) made();
            });
          }}
        >
          {chosen.length >= 2 ? `Merge the ${chosen.length} selected lines` : 'Merge selected lines'}
        </button>
        {chosen.length < 2 && <span className="hint">Select two lines or more to merge them.</span>}
      </div>
      {splitLine && (
        <SplitLineForm
          key={splitLine.id}
          line={splitLine}
          number={lines.indexOf(splitLine) + 1}
          busy={busy}
          blocked={blockedBy !== null}
          onCancel={() => {
            focusNext.current = splitLine.id;
            setSplitting(null);
          }}
          onSplit={(amounts) => {
            sending.current = splitLine.id;
            void onSplit(splitLine.id, amounts).then((split) => {
              sending.current = null;
              if (split) made();
            });
          }}
        />
      )}
    </>
  );
}
