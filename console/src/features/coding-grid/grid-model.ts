import type { AccountingRecord, BulkCodingItem, BulkCodingResult, CodingSuggestion, Field } from '@svc/client';

/**
 * What the coding grid shows and edits, as plain data: one row per economic line of the page's records, one
 * column per field; the edits made (changed cells) until they are saved; what each save answered per record.
 */

/** A value chosen for a cell: its svc_id, and its name to show. */
export interface Choice {
  svc_id: string;
  label: string;
}

export interface GridRow {
  key: string;
  record: AccountingRecord;
  line: AccountingRecord['line_items'][number];
  /** 1-based among the record's economic lines. */
  lineNumber: number;
  lineCount: number;
}

/** Edits by row key, then field id (null: the value removed). */
export type Edits = ReadonlyMap<string, ReadonlyMap<string, Choice | null>>;

export const rowKey = (recordId: string, lineId: string) => `${recordId} ${lineId}`;

/** The rows of records shown in single-entry form (their economic lines), in the page's order. */
export function rowsOf(records: readonly AccountingRecord[]): GridRow[] {
  return records.flatMap((record) =>
    record.line_items.map((line, i) => ({
      key: rowKey(record.id, line.id),
      record,
      line,
      lineNumber: i + 1,
      lineCount: record.line_items.length,
    })),
  );
}

/** The value the line is stored with in a field (null: none). */
export function storedChoice(row: GridRow, fieldId: string): Choice | null {
  const coded = row.line.accounting_field_values.find((c) => c.svc_field_id === fieldId);
  return coded ? { svc_id: coded.svc_field_value_id, label: coded.field_value_name } : null;
}

export function editOf(edits: Edits, row: GridRow, fieldId: string): Choice | null | undefined {
  return edits.get(row.key)?.get(fieldId);
}

/** What the cell shows: the edit made, else the stored value. */
export function cellChoice(edits: Edits, row: GridRow, fieldId: string): Choice | null {
  const edit = editOf(edits, row, fieldId);
  return edit === undefined ? storedChoice(row, fieldId) : edit;
}

/** The cell differs from what is stored. */
export function isChanged(edits: Edits, row: GridRow, fieldId: string): boolean {
  const edit = editOf(edits, row, fieldId);
  return edit !== undefined && (edit?.svc_id ?? null) !== (storedChoice(row, fieldId)?.svc_id ?? null);
}

/** The edits with one cell set (set back to the stored value: no longer an edit). */
export function withEdit(edits: Edits, row: GridRow, fieldId: string, choice: Choice | null): Edits {
  const next = new Map(edits);
  const cells = new Map(next.get(row.key) ?? []);
  if ((choice?.svc_id ?? null) === (storedChoice(row, fieldId)?.svc_id ?? null)) cells.delete(fieldId);
  else cells.set(fieldId, choice);
  if (cells.size === 0) next.delete(row.key);
  else next.set(row.key, cells);
  return next;
}

/** Suggestions by row key, then field id. */
export type Suggestions = ReadonlyMap<string, ReadonlyMap<string, CodingSuggestion>>;

export function suggestionsOf(pages: readonly { accounting_record_id: string; suggestions: CodingSuggestion[] }[]) {
  const out = new Map<string, Map<string, CodingSuggestion>>();
  for (const page of pages) {
    for (const s of page.suggestions) {
      const key = rowKey(page.accounting_record_id, s.line_id);
      const cells = out.get(key) ?? new Map<string, CodingSuggestion>();
      cells.set(s.field_id, s);
      out.set(key, cells);
    }
  }
  return out as Suggestions;
}

/** The suggestion an empty cell shows (none where the cell has a value). */
export function shownSuggestion(
  suggestions: Suggestions,
  edits: Edits,
  row: GridRow,
  fieldId: string,
): CodingSuggestion | null {
  if (cellChoice(edits, row, fieldId)) return null;
  return suggestions.get(row.key)?.get(fieldId) ?? null;
}

/**
 * The bulk coding's items: each record with a changed line, at the version shown, each changed line with its whole
 * coding (the grid's fields as edited, and the values of fields the grid does not show, kept).
 */
export function changedItems(rows: readonly GridRow[], fields: readonly Field[], edits: Edits): BulkCodingItem[] {
  const shown = new Set(fields.map((f) => f.svc_id));
  const byRecord = new Map<string, BulkCodingItem>();
  for (const row of rows) {
    if (!fields.some((f) => isChanged(edits, row, f.svc_id))) continue;
    const item = byRecord.get(row.record.id) ?? { record_id: row.record.id, version: row.record.version, lines: [] };
    item.lines.push({
      line_id: row.line.id,
      field_values: [
        ...fields.flatMap((f) => {
          const choice = cellChoice(edits, row, f.svc_id);
          return choice ? [{ field_id: f.svc_id, svc_id: choice.svc_id }] : [];
        }),
        ...row.line.accounting_field_values
          .filter((c) => !shown.has(c.svc_field_id))
          .map((c) => ({ field_id: c.svc_field_id, svc_id: c.svc_field_value_id })),
      ],
    });
    byRecord.set(row.record.id, item);
  }
  return [...byRecord.values()];
}

/** A refused record's reason, in words. */
export function refusalWords(result: Extract<BulkCodingResult, { status: 'REFUSED' }>): string {
  const { error } = result;
  const details = error.details ?? {};
  switch (error.error_code) {
    case 'VERSION_CONFLICT':
      return `Not saved: someone changed this record meanwhile (it is now at version ${String(details.current_version)}). Reload the page to see their change, then code it again.`;
    case 'RECORD_NOT_EDITABLE':
      return 'Not saved: this record is no longer under review, so its lines cannot be coded. Reload the page.';
    case 'NOT_FOUND':
      return 'Not saved: this record no longer exists.';
    case 'INVALID_CODING':
      return `Not saved: a value cannot code this line (disabled or deleted meanwhile). ${error.message}`;
    default:
      return `Not saved: ${error.message}`;
  }
}
