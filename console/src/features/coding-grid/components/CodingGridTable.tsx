import type { Field } from '@svc/client';
import { useLayoutEffect, useRef, type KeyboardEvent } from 'react';
import { formatDate, formatMoney } from '../../../lib/format';
import { recordTitle } from '../../../lib/labels';
import { gridAction } from '../grid-keys';
import { cellChoice, isChanged, shownSuggestion, type GridRow, type Suggestions } from '../grid-model';
import type { GridEdits } from '../use-grid-edits';
import { GridCellPicker } from './GridCellPicker';

interface CodingGridTableProps {
  rows: readonly GridRow[];
  fields: readonly Field[];
  suggestions: Suggestions;
  grid: GridEdits;
  /** Why each refused record was not saved (or not approved), in words, by record id. */
  refusals: ReadonlyMap<string, string>;
}

const rowName = (row: GridRow) =>
  `${recordTitle(row.record)}, ${formatDate(row.record.posted_at)}, line ${row.lineNumber}`;

/**
 * The coding grid: a real ARIA grid (one tab stop, the active cell; arrows move it) of the page's lines, one column
 * per field. Empty cells show the suggestion greyed; changed cells are marked; a refused record says why on its
 * rows.
 */
export function CodingGridTable({ rows, fields, suggestions, grid, refusals }: CodingGridTableProps) {
  const table = useRef<HTMLTableElement>(null);
  const { active, editing, edits, selected } = grid;

  // The active cell holds the focus while the grid has it (and takes it back when an edit ends). A layout effect: it
  // runs in the same task as the change that removed the editor, so a key pressed right after (Tab after an Enter
  // that took a match when the search answered) never finds the focus on the page's body, where the browser's own
  // Tab would carry it out of the grid.
  useLayoutEffect(() => {
    if (editing) return;
    const inGrid = table.current?.contains(document.activeElement) || document.activeElement === document.body;
    if (!inGrid) return;
    table.current?.querySelector<HTMLElement>(`[data-cell="${active.row}:${active.col}"]`)?.focus();
  }, [active.row, active.col, editing]);

  const onKeyDown = (event: KeyboardEvent<HTMLTableElement>) => {
    if (editing) return;
    const action = gridAction(event);
    if (action && grid.act(action)) event.preventDefault();
  };

  return (
    <table
      ref={table}
      role="grid"
      className="data-table coding-grid"
      aria-label="Lines to code"
      aria-multiselectable="true"
      onKeyDown={onKeyDown}
    >
      <thead>
        <tr>
          <th scope="col">
            <span className="visually-hidden">Selected</span>
          </th>
          <th scope="col">Vendor</th>
          <th scope="col">Date</th>
          <th scope="col" className="numeric">
            Amount
          </th>
          <th scope="col">Memo</th>
          <th scope="col" className="numeric">
            Line amount
          </th>
          {fields.map((f) => (
            <th scope="col" key={f.svc_id}>
              {f.name}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, r) => {
          const isSelected = selected.has(row.key);
          const refusal = refusals.get(row.record.id);
          const name = rowName(row);
          return (
            <tr key={row.key} aria-selected={isSelected} className={isSelected ? 'grid-row selected' : 'grid-row'}>
              <td role="gridcell">
                <input
                  type="checkbox"
                  tabIndex={-1}
                  checked={isSelected}
                  aria-label={`Select ${name}`}
                  onChange={() => grid.toggle(row.key)}
                />
              </td>
              <th scope="row" role="rowheader">
                {recordTitle(row.record)}
                {row.lineCount > 1 && <span className="cell-sub">Line {row.lineNumber}</span>}
                {refusal && <span className="row-refusal">{refusal}</span>}
              </th>
              <td role="gridcell">{formatDate(row.record.posted_at)}</td>
              <td role="gridcell" className="numeric">
                {formatMoney(row.record.amount)}
              </td>
              <td role="gridcell">{row.record.memo ?? ''}</td>
              <td role="gridcell" className="numeric">
                {formatMoney(row.line.amount)}
              </td>
              {fields.map((field, c) => {
                const isActive = active.row === r && active.col === c;
                const choice = cellChoice(edits, row, field.svc_id);
                const changed = isChanged(edits, row, field.svc_id);
                const suggestion = shownSuggestion(suggestions, edits, row, field.svc_id);
                const label = `${field.name} for ${name}`;
                const said = choice
                  ? `${choice.label}${changed ? ', changed' : ''}`
                  : suggestion
                    ? `empty${changed ? ' (removed)' : ''}, suggested ${suggestion.value}: ${suggestion.reason}`
                    : `empty${changed ? ' (removed)' : ''}`;
                return (
                  <td
                    key={field.svc_id}
                    role="gridcell"
                    data-cell={`${r}:${c}`}
                    tabIndex={isActive && !editing ? 0 : -1}
                    aria-label={isActive && editing ? undefined : `${label}: ${said}`}
                    className={[
                      'grid-cell',
                      isActive ? 'active' : '',
                      changed ? 'changed' : '',
                      suggestion ? 'suggested' : '',
                    ].join(' ')}
                    onClick={() => grid.setActive({ row: r, col: c })}
                    onFocus={() => {
                      if (!isActive) grid.setActive({ row: r, col: c });
                    }}
                  >
                    {isActive && editing ? (
                      <GridCellPicker
                        fieldId={field.svc_id}
                        fieldName={field.name}
                        label={label}
                        initial={choice}
                        onCommit={(next) => {
                          grid.set(row, field.svc_id, next);
                          grid.setEditing(false);
                        }}
                        onCancel={() => grid.setEditing(false)}
                        onTab={(backwards) => {
                          grid.setEditing(false);
                          grid.act({ type: 'tab', backwards });
                        }}
                      />
                    ) : choice ? (
                      <span className="cell-value">{choice.label}</span>
                    ) : suggestion ? (
                      <span className="cell-suggestion" title={suggestion.reason}>
                        {suggestion.value}
                      </span>
                    ) : null}
                  </td>
                );
              })}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
