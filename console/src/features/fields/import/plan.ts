import type { FieldValue } from '@svc/client';
import { client } from '../../../lib/client';
import type { ImportRow, InvalidRow } from './import-file';

/** What importing a row does: create a value, update the value of its remote_id, nothing (unchanged or skipped), or nothing because the row is invalid. */
export type RowOutcome = 'create' | 'update' | 'unchanged' | 'skip' | 'invalid';

/** What to do with a row whose remote_id names a value the field has already. */
export type ExistingRows = 'skip' | 'update';

export interface PlannedRow {
  row: number;
  outcome: RowOutcome;
  /** What is sent (create, update); what the row holds otherwise. */
  item: ImportRow['item'] | null;
  /** The value the row's remote_id names (update, unchanged, skip). */
  existing?: FieldValue;
  /** Why nothing is sent for it (skip, invalid). */
  reason?: string;
}

/** remote_ids asked for per list request: well within a URL's length. */
const LOOKUP_CHUNK = 100;

/** The field's values that the rows' remote_ids name, by remote_id (read before anything is written). */
export async function existingByRemoteId(fieldId: string, rows: ImportRow[]): Promise<Map<string, FieldValue>> {
  const ids = [...new Set(rows.flatMap((r) => (r.item.remote_id ? [r.item.remote_id] : [])))];
  const found = new Map<string, FieldValue>();
  for (let first = 0; first < ids.length; first += LOOKUP_CHUNK) {
    const chunk = ids.slice(first, first + LOOKUP_CHUNK);
    const page = await client.fieldValues.list(fieldId, { 'remote_id[]': chunk, limit: 1000 });
    for (const value of page.items) if (value.remote_id) found.set(value.remote_id, value);
  }
  return found;
}

const sameValue = (item: ImportRow['item'], existing: FieldValue) =>
  item.value === existing.value &&
  (item.is_disabled == null || item.is_disabled === existing.is_disabled) &&
  (item.value_id == null || item.value_id === existing.value_id);

/**
 * Each row's outcome, in the file's order: invalid rows (the file's, and a remote_id or value_id repeated in the
 * file: the later row), rows whose remote_id the field has (unchanged when nothing differs; otherwise skipped or
 * updated, as asked), and the rest created. The service checks every row again when it is sent.
 */
export function planImport(
  rows: ImportRow[],
  invalid: InvalidRow[],
  existing: ReadonlyMap<string, FieldValue>,
  mode: ExistingRows,
): PlannedRow[] {
  const planned: PlannedRow[] = invalid.map((r) => ({ row: r.row, outcome: 'invalid', item: null, reason: r.reason }));
  const firstRow = { remote_id: new Map<string, number>(), value_id: new Map<string, number>() };
  for (const { row, item } of rows) {
    const ids = { remote_id: item.remote_id ?? undefined, value_id: item.value_id ?? undefined };
    const repeated = (['remote_id', 'value_id'] as const).find((key) => {
      const id = ids[key];
      return id !== undefined && firstRow[key].has(id);
    });
    if (repeated) {
      const earlier = firstRow[repeated].get(ids[repeated]!)!;
      planned.push({
        row,
        outcome: 'invalid',
        item,
        reason: `${repeated} “${ids[repeated]}” is also on row ${earlier.toLocaleString('en-US')}: it must be unique within the field.`,
      });
      continue;
    }
    if (ids.remote_id !== undefined) firstRow.remote_id.set(ids.remote_id, row);
    if (ids.value_id !== undefined) firstRow.value_id.set(ids.value_id, row);
    const found = ids.remote_id === undefined ? undefined : existing.get(ids.remote_id);
    if (!found) {
      planned.push({ row, outcome: 'create', item });
    } else if (sameValue(item, found)) {
      planned.push({ row, outcome: 'unchanged', item, existing: found });
    } else if (mode === 'skip') {
      planned.push({
        row,
        outcome: 'skip',
        item,
        existing: found,
        reason: `remote_id “${found.remote_id}” is already the value “${found.value}”: skipped.`,
      });
    } else if (ids.value_id !== undefined && ids.value_id !== found.value_id) {
      planned.push({
        row,
        outcome: 'invalid',
        item,
        existing: found,
        reason: `value_id cannot be changed by an import (the value of remote_id “${found.remote_id}” has ${found.value_id === null ? 'none' : `“${found.value_id}”`}).`,
      });
    } else {
      planned.push({ row, outcome: 'update', item, existing: found });
    }
  }
  return planned.sort((a, b) => a.row - b.row);
}

/** How many rows of each outcome. */
export function countOutcomes(planned: readonly PlannedRow[]): Record<RowOutcome, number> {
  const counts: Record<RowOutcome, number> = { create: 0, update: 0, unchanged: 0, skip: 0, invalid: 0 };
  for (const p of planned) counts[p.outcome] += 1;
  return counts;
}
