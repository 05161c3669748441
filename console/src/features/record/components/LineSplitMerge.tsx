import type { AccountingRecord } from '@svc/client';
import { useState } from 'react';
import { ScrollRegion } from '../../../components/ScrollRegion';
import { formatMoney } from '../../../lib/format';
import { describeCoding } from '../lines';
import { SplitLineForm } from './SplitLineForm';

/**
 * The economic lines, to split one into parts or merge several into one. A split part keeps the line's coding and
 * memo; a merged line takes the coding all its lines share (docs/accounting.md, "The review workflow").
 */
export function LineSplitMerge({
  singleEntry,
  busy,
  blockedBy,
  onSplit,
  onMerge,
}: {
  singleEntry: AccountingRecord;
  busy: boolean;
  /** Why the lines cannot change now (unsaved coding), or null. */
  blockedBy: string | null;
  onSplit: (lineId: string, amounts: number[]) => void;
  onMerge: (lineIds: string[]) => void;
}) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [splitting, setSplitting] = useState<string | null>(null);
  const lines = singleEntry.line_items;
  const chosen = lines.filter((line) => selected.has(line.id)).map((line) => line.id);
  const splitLine = lines.find((line) => line.id === splitting);
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
                    disabled={busy || blockedBy !== null || splitting !== null}
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
            onMerge(chosen);
            setSelected(new Set());
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
          onCancel={() => setSplitting(null)}
          onSplit={(amounts) => {
            onSplit(splitLine.id, amounts);
            setSplitting(null);
          }}
        />
      )}
    </>
  );
}
