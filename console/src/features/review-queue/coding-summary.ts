import type { AccountingRecord } from '@svc/client';

/** One field's coding across a record's economic lines: its one value, or mixed where the lines differ. */
export interface FieldSummary {
  field: string;
  /** The value every line has; null when the lines differ (or some lines lack it): "mixed". */
  value: string | null;
}

export interface CodingSummary {
  lines: number;
  /** Lines with no coding at all. */
  uncoded: number;
  fields: FieldSummary[];
}

/**
 * What a record's lines are coded with, field by field (in the order the fields first appear), read from its
 * single-entry lines: what a bulk approve approves, shown on the queue's row.
 */
export function codingSummary(record: AccountingRecord): CodingSummary {
  const lines = record.line_items;
  const fieldIds: string[] = [];
  const names = new Map<string, string>();
  for (const line of lines) {
    for (const c of line.accounting_field_values) {
      if (!names.has(c.svc_field_id)) fieldIds.push(c.svc_field_id);
      names.set(c.svc_field_id, c.field_name);
    }
  }
  const fields = fieldIds.map((fieldId): FieldSummary => {
    const values = lines.map((line) => line.accounting_field_values.find((c) => c.svc_field_id === fieldId));
    const first = values[0];
    const same = first !== undefined && values.every((v) => v?.svc_field_value_id === first.svc_field_value_id);
    return { field: names.get(fieldId)!, value: same ? first.field_value_name : null };
  });
  return {
    lines: lines.length,
    uncoded: lines.filter((line) => line.accounting_field_values.length === 0).length,
    fields,
  };
}
