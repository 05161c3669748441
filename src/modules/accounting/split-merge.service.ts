import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { Caller } from '../auth/auth.service.js';
import type { LineItem } from './ledger.js';
import { checkLineIds, codingsFor, editRecord, minor } from './line-edit.js';
import { allocate, formatMoney, fromMinor, toMinor } from './money.js';
import type { MergeLinesInput, RecordWithSingleEntry, SplitLineInput } from './review.schemas.js';

/**
 * Splitting an economic line into several coded lines, and merging lines back into one. Allowed while a record is
 * under review (PREPARE, REVIEW), as every edit of its lines is (`line-edit.ts`).
 */
export const splitMergeService = {
  /**
   * Splits an economic line into parts that sum exactly to it, each coded (as given, or as the line was); the
   * line's original and billing amounts are apportioned over the parts by their amounts, as ingestion apportions
   * a record's.
   */
  async splitLine(
    ex: Executor,
    caller: Caller,
    id: string,
    lineId: string,
    input: SplitLineInput,
  ): Promise<RecordWithSingleEntry> {
    return editRecord(ex, caller, id, input.version, async (record, lines, economic) => {
      checkLineIds([{ path: '/params/line_id', id: lineId }], economic, lines);
      const index = economic.get(lineId)!;
      const line = lines[index]!;
      const problems: ValidationProblem[] = [];
      const amounts = input.parts.map((part, i) => {
        const path = `/parts/${i}/amount`;
        if (part.amount.currency !== record.currency) {
          problems.push({ path: `${path}/currency`, message: `must be ${record.currency}, the record's currency` });
          return 0;
        }
        const value = toMinor(part.amount);
        if (typeof value === 'number') return value;
        problems.push({ path: `${path}/${value.at}`, message: value.message });
        return 0;
      });
      const total = minor(line.amount);
      const sum = amounts.reduce((a, b) => a + b, 0);
      if (problems.length === 0 && sum !== total) {
        problems.push({
          path: '/parts',
          message: `must sum to the line's amount ${formatMoney(total, record.currency)}, not ${formatMoney(sum, record.currency)}`,
        });
      }
      if (problems.length > 0) throw errors.invalidRequest(problems);
      const given = await codingsFor(
        ex,
        caller,
        input.parts.map((p, i) => ({ path: `/parts/${i}/field_values`, lineId, refs: p.field_values ?? [] })),
      );
      const originals = line.original_amount === null ? null : allocate(minor(line.original_amount), amounts);
      const billing = line.billing_amount;
      const billings = billing === undefined ? null : allocate(minor(billing), amounts);
      const parts = input.parts.map((part, i): LineItem => ({
        id: newId('accrli'),
        type: line.type,
        amount: fromMinor(amounts[i]!, record.currency),
        original_amount:
          originals && line.original_amount ? fromMinor(originals[i]!, line.original_amount.currency) : null,
        ...(billings && billing ? { billing_amount: fromMinor(billings[i]!, billing.currency) } : {}),
        memo: part.memo === undefined ? line.memo : part.memo,
        accounting_field_values: part.field_values === undefined ? line.accounting_field_values : given[i]!,
        amortization: null,
      }));
      lines.splice(index, 1, ...parts);
      return {
        lines,
        type: 'SPLIT',
        changes: {
          line_id: lineId,
          amount: line.amount,
          into: parts.map((p) => ({
            line_id: p.id,
            amount: p.amount,
            accounting_field_values: p.accounting_field_values,
          })),
        },
      };
    });
  },

  /**
   * Merges economic lines into one, in the place of the first of them: its amounts (original and billing too) their sum,
   * its coding as given, else the values all of them share; its memo as given, else the first line's.
   */
  async mergeLines(ex: Executor, caller: Caller, id: string, input: MergeLinesInput): Promise<RecordWithSingleEntry> {
    return editRecord(ex, caller, id, input.version, async (record, lines, economic) => {
      checkLineIds(
        input.line_ids.map((lineId, i) => ({ path: `/line_ids/${i}`, id: lineId })),
        economic,
        lines,
      );
      const merged = input.line_ids.map((lineId) => economic.get(lineId)!).sort((a, b) => a - b);
      const parts = merged.map((i) => lines[i]!);
      const first = parts[0]!;
      const [coding] =
        input.field_values === undefined
          ? [
              first.accounting_field_values.filter((c) =>
                parts.every((p) =>
                  p.accounting_field_values.some((o) => o.svc_field_value_id === c.svc_field_value_id),
                ),
              ),
            ]
          : await codingsFor(ex, caller, [{ path: '/field_values', lineId: null, refs: input.field_values }]);
      const originalCurrency = first.original_amount?.currency ?? null;
      const billingCurrency = first.billing_amount?.currency ?? null;
      const line: LineItem = {
        id: newId('accrli'),
        type: first.type,
        amount: fromMinor(
          parts.reduce((sum, p) => sum + minor(p.amount), 0),
          record.currency,
        ),
        original_amount:
          originalCurrency === null || parts.some((p) => p.original_amount === null)
            ? null
            : fromMinor(
                parts.reduce((sum, p) => sum + minor(p.original_amount!), 0),
                originalCurrency,
              ),
        ...(billingCurrency === null || parts.some((p) => p.billing_amount === undefined)
          ? {}
          : {
              billing_amount: fromMinor(
                parts.reduce((sum, p) => sum + minor(p.billing_amount!), 0),
                billingCurrency,
              ),
            }),
        memo: input.memo === undefined ? first.memo : input.memo,
        accounting_field_values: coding!,
        amortization: null,
      };
      const kept = lines.filter((_, i) => !merged.includes(i) || i === merged[0]);
      kept.splice(kept.indexOf(first), 1, line);
      return {
        lines: kept,
        type: 'MERGED',
        changes: {
          line_ids: parts.map((p) => p.id),
          into: { line_id: line.id, amount: line.amount, accounting_field_values: line.accounting_field_values },
        },
      };
    });
  },
};
