import type { AccountingRecord, Field, RecordDraft } from '@svc/client';
import type { DraftContent } from './api/drafts';
import type { CodingChoice } from './components/LineCodingPicker';

/** The coding being edited: line id → field id → the chosen value (null: none). */
export type Cells = Record<string, Record<string, CodingChoice | null>>;

/** The cells as the record has them. */
export function cellsOf(singleEntry: AccountingRecord, fields: readonly Field[]): Cells {
  return Object.fromEntries(
    singleEntry.line_items.map((line) => [
      line.id,
      Object.fromEntries(
        fields.map((field) => {
          const coded = line.accounting_field_values.find((c) => c.svc_field_id === field.svc_id);
          return [field.svc_id, coded ? { svc_id: coded.svc_field_value_id, label: coded.field_value_name } : null];
        }),
      ),
    ]),
  );
}

export const sameChoice = (a: CodingChoice | null | undefined, b: CodingChoice | null | undefined) =>
  (a?.svc_id ?? null) === (b?.svc_id ?? null);

/** A restored draft's cells over the record's: only lines the record still has, fields the form shows. */
export function withDraft(cells: Cells, draft: RecordDraft): Cells {
  const out: Cells = { ...cells };
  for (const line of draft.lines) {
    const current = out[line.line_id];
    if (!current) continue;
    const edited = { ...current };
    for (const value of line.values) {
      if (!(value.field_id in edited)) continue;
      edited[value.field_id] = value.svc_id ? { svc_id: value.svc_id, label: value.label } : null;
    }
    out[line.line_id] = edited;
  }
  return out;
}

/** What differs from the record, as a draft to keep: the edited cells of each line, in the page's order. */
export function draftContent(
  version: number,
  lineIds: readonly string[],
  fields: readonly Field[],
  cells: Cells,
  initial: Cells,
): DraftContent {
  const lines = lineIds.flatMap((lineId) => {
    const values = fields.flatMap((field) => {
      const choice = cells[lineId]?.[field.svc_id];
      if (sameChoice(choice, initial[lineId]?.[field.svc_id])) return [];
      return [{ field_id: field.svc_id, svc_id: choice?.svc_id ?? null, label: choice?.label ?? '' }];
    });
    return values.length > 0 ? [{ line_id: lineId, values }] : [];
  });
  return { version, lines };
}
