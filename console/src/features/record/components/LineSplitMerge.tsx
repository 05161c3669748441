import type { AccountingRecord } from '@svc/client';
import { useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatMoney } from '../../../lib/format';
import { describeCoding } from '../lines';
import { SplitLineForm } from './SplitLineForm';

/** The focus was on what is no longer there or no longer usable (the user did not move it elsewhere meanwhile). */
function focusLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || (active instanceof HTMLButtonElement && active.disabled);
}

/**
 * The economic lines, to split one into parts or merge several into one. A split part keeps the line's coding and
 * memo; a merged line takes the coding all its lines share (docs/accounting.md, "The review workflow").
 *
 * The open split and the selection outlive a new version of the record (a line that is gone drops out of them); they
 * are cleared when the split or merge they were for is made. The focus never falls to the page: a cancelled split
 * gives it back to its line's button; a split or merge made, or a split whose line is gone, to the section's heading.
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
  const [splitting, setSplitting] = useState<string | null>(null);
  const splitButtons = useRef(new Map<string, HTMLButtonElement>());
  const lines = singleEntry.line_items;
  const chosen = lines.filter((line) => selected.has(line.id)).map((line) => line.id);
  const splitLine = lines.find((line) => line.id === splitting);
  /** The line whose split button takes the focus once drawn enabled again (a cancelled split). */
  const focusNext = useRef<string | null>(null);
  /** After a split or merge made: the lines it was on are redrawn, the focus to the heading unless the user moved it. */
  const focusHeadingIfLost = () => {
    if (focusLost()) heading.current?.focus();
  };
  // The open split's line merged or split away by someone else: the form is gone; so is the focus, if it was there.
  const lineGone = splitting !== null && splitLine === undefined;
  // Layout effects: the focus is placed before the browser hands a key pressed meanwhile to the page's body.
  useLayoutEffect(() => {
    if (!lineGone) return;
    setSplitting(null);
    focusHeadingIfLost();
  });
  useLayoutEffect(() => {
    const target = focusNext.current;
    if (target === null) return;
    focusNext.current = null;
    splitButtons.current.get(target)?.focus();
  });
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
                    onClick={() => setSplitting(line.id)}
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
              if (!merged) return;
              focusHeadingIfLost(); // this button, disabled while it worked, stays so with no selection
              setSelected(new Set());
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
            void onSplit(splitLine.id, amounts).then((made) => {
              if (!made) return;
              focusHeadingIfLost(); // its button, disabled while it worked, goes with the form
              setSplitting(null);
            });
          }}
        />
      )}
    </>
  );
}
