import type { Executor } from '../../db/database.js';
import type { Caller } from '../auth/auth.service.js';
import { checkLineIds, codingsFor, editRecord } from './line-edit.js';
import type { CodeLinesInput, RecordWithSingleEntry } from './review.schemas.js';

/**
 * Coding: which custom field values an economic line is booked to. Allowed while a record is under review
 * (PREPARE, REVIEW), as every edit of its lines is (`line-edit.ts`); splitting and merging lines are
 * `split-merge.service.ts`.
 */
export const codingService = {
  /** Sets the coding of each line given (the whole coding: values not listed are removed from the line). */
  async codeLines(ex: Executor, caller: Caller, id: string, input: CodeLinesInput): Promise<RecordWithSingleEntry> {
    return editRecord(ex, caller, id, input.version, async (_record, lines, economic) => {
      checkLineIds(
        input.lines.map((l, i) => ({ path: `/lines/${i}/line_id`, id: l.line_id })),
        economic,
        lines,
      );
      const codings = await codingsFor(
        ex,
        caller,
        input.lines.map((l, i) => ({ path: `/lines/${i}/field_values`, lineId: l.line_id, refs: l.field_values })),
      );
      const changes = input.lines.map((l, i) => {
        const index = economic.get(l.line_id)!;
        const before = lines[index]!.accounting_field_values;
        lines[index] = { ...lines[index]!, accounting_field_values: codings[i]! };
        return { line_id: l.line_id, before, after: codings[i]! };
      });
      return { lines, type: 'CODED', changes: { lines: changes } };
    });
  },
};
