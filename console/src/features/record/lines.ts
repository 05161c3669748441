import type { AccountingRecord } from '@svc/client';

export type LineItem = AccountingRecord['line_items'][number];
export type Coding = LineItem['accounting_field_values'][number];

/**
 * The economic lines (those coded), numbered 1, 2… as the single-entry view lists them: "line 1" means the same
 * line on the page, in the pickers' names, and in the service's CODING_REQUIRED answers (index + 1).
 */
export function lineNumbers(singleEntry: AccountingRecord): Map<string, number> {
  return new Map(singleEntry.line_items.map((line, index) => [line.id, index + 1]));
}

/** "GL Account: Travel; Department: Sales", or null when the line carries no coding. */
export function describeCoding(codings: readonly Coding[]): string | null {
  if (codings.length === 0) return null;
  return codings.map((c) => `${c.field_name}: ${c.field_value_name}`).join('; ');
}
