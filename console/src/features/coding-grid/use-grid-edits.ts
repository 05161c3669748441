import type { Field } from '@svc/client';
import { useState } from 'react';
import type { GridAction } from './grid-keys';
import {
  cellChoice,
  shownSuggestion,
  withEdit,
  type Choice,
  type Edits,
  type GridRow,
  type Suggestions,
} from './grid-model';

export interface Cell {
  row: number;
  col: number;
}

/**
 * The grid's state over one page of rows: the active cell, whether it is being edited, the edits, the selected
 * rows; and what each key does to them.
 */
export function useGridEdits(rows: readonly GridRow[], fields: readonly Field[], suggestions: Suggestions) {
  const [active, setActive] = useState<Cell>({ row: 0, col: 0 });
  const [editing, setEditing] = useState(false);
  const [edits, setEdits] = useState<Edits>(new Map());
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());

  const clamp = (cell: Cell): Cell => ({
    row: Math.max(0, Math.min(cell.row, rows.length - 1)),
    col: Math.max(0, Math.min(cell.col, fields.length - 1)),
  });
  const at = clamp(active);
  const activeRow = rows[at.row];
  const activeField = fields[at.col];

  const set = (row: GridRow, fieldId: string, choice: Choice | null) =>
    setEdits((current) => withEdit(current, row, fieldId, choice));

  const acceptAll = () =>
    setEdits((current) => {
      let next = current;
      for (const row of rows) {
        for (const field of fields) {
          const s = shownSuggestion(suggestions, next, row, field.svc_id);
          if (s) next = withEdit(next, row, field.svc_id, { svc_id: s.svc_id, label: s.value });
        }
      }
      return next;
    });

  /** Applies a key's action; false when the key is not the grid's (Tab out of the last cell, for one). */
  function act(action: GridAction): boolean {
    if (rows.length === 0 || fields.length === 0) return false;
    switch (action.type) {
      case 'move':
        setActive(clamp({ row: at.row + action.rows, col: at.col + action.cols }));
        return true;
      case 'home':
        setActive({ row: at.row, col: 0 });
        return true;
      case 'end':
        setActive({ row: at.row, col: fields.length - 1 });
        return true;
      case 'tab': {
        const col = at.col + (action.backwards ? -1 : 1);
        if (col < 0 || col >= fields.length) return false;
        setActive({ row: at.row, col });
        return true;
      }
      case 'edit':
        setEditing(true);
        return true;
      case 'clear':
        if (activeRow && activeField) set(activeRow, activeField.svc_id, null);
        return true;
      case 'toggle':
        if (activeRow) toggle(activeRow.key);
        return true;
      case 'selectAll':
        setSelected((current) => (current.size === rows.length ? new Set() : new Set(rows.map((r) => r.key))));
        return true;
      case 'copyDown': {
        const above = rows[at.row - 1];
        if (above && activeRow && activeField) {
          set(activeRow, activeField.svc_id, cellChoice(edits, above, activeField.svc_id));
        }
        return true;
      }
      case 'accept': {
        const s = activeRow && activeField ? shownSuggestion(suggestions, edits, activeRow, activeField.svc_id) : null;
        if (s && activeRow && activeField) set(activeRow, activeField.svc_id, { svc_id: s.svc_id, label: s.value });
        return true;
      }
      case 'acceptAll':
        acceptAll();
        return true;
      case 'applyToSelected':
        applyToSelected();
        return true;
    }
  }

  function toggle(key: string) {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }

  /** The active cell's value on every selected row. */
  function applyToSelected() {
    if (!activeRow || !activeField) return;
    const choice = cellChoice(edits, activeRow, activeField.svc_id);
    setEdits((current) => {
      let next = current;
      for (const row of rows) if (selected.has(row.key)) next = withEdit(next, row, activeField.svc_id, choice);
      return next;
    });
  }

  return {
    active: at,
    setActive: (cell: Cell) => setActive(clamp(cell)),
    editing,
    setEditing,
    edits,
    setEdits,
    selected,
    setSelected,
    set,
    toggle,
    act,
    acceptAll,
    applyToSelected,
  };
}

export type GridEdits = ReturnType<typeof useGridEdits>;
