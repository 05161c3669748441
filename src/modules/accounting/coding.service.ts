import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { Caller } from '../auth/auth.service.js';
import { fieldValuesService, type CodingRef } from '../field-values/field-values.service.js';
import { accountingRepository } from './accounting.repository.js';
import { AccountingRecordShape } from './accounting.schemas.js';
import type { StoredRecord } from './accounting.tables.js';
import type { CodeLinesInput, MergeLinesInput, RecordWithSingleEntry, SplitLineInput } from './review.schemas.js';
import { recordEvents } from './history.js';
import { codingOf } from './ingest.service.js';
import { economicSideOf, type AccountingFieldValue, type LineItem } from './ledger.js';
import { EDITABLE, type RecordEventType } from './lifecycle.js';
import { allocate, formatMoney, fromMinor, toMinor, type Money } from './money.js';
import { recordClock } from './record-clock.repository.js';
import { reviewRepository } from './review.repository.js';

/**
 * Coding: which custom field values an economic line is booked to; and splitting a line into several coded lines,
 * or merging lines back into one. Allowed while a record is under review (PREPARE, REVIEW); each change bumps the
 * version by one and moves updated_at under the record clock, as every change does, so pollers see it; each is
 * kept in the record's history.
 */

interface Edit {
  lines: LineItem[];
  type: RecordEventType;
  changes: object;
}

const notFound = (id: string) => errors.notFound(`Accounting record ${id}`, { accounting_record_id: id });

/** The record's economic lines must be its own: the balancing line is never coded, split or merged. */
function economicIndex(record: StoredRecord, lines: readonly LineItem[]): Map<string, number> {
  const side = economicSideOf(record.type);
  return new Map(lines.flatMap((line, i) => (line.type === side ? [[line.id, i] as const] : [])));
}

function lineProblem(path: string, lineId: string, economic: ReadonlyMap<string, number>, lines: readonly LineItem[]) {
  if (economic.has(lineId)) return null;
  return lines.some((l) => l.id === lineId)
    ? { path, message: `is ${lineId}, the balancing line: only economic lines are coded, split or merged` }
    : { path, message: `is not a line of this record (${lineId})` };
}

/**
 * The codings the references name, one value per field; 400 for a field coded twice, 422 INVALID_CODING naming
 * the line and value of every reference that is unknown, deleted, disabled, or of a disabled field.
 */
async function codingsFor(
  ex: Executor,
  caller: Caller,
  groups: readonly { path: string; lineId: string | null; refs: readonly CodingRef[] }[],
): Promise<AccountingFieldValue[][]> {
  const refs = groups.flatMap((g) => g.refs);
  const found = await fieldValuesService.lookupCodings(ex, caller, refs);
  const invalid: (ValidationProblem & Record<string, unknown>)[] = [];
  const twice: ValidationProblem[] = [];
  let at = 0;
  const out = groups.map((group) => {
    const fields = new Set<string>();
    return group.refs.flatMap((ref, k) => {
      const result = found[at++]!;
      const path = `${group.path}/${k}`;
      const named = { path, line_id: group.lineId, ...ref };
      if ('problem' in result) {
        invalid.push({
          ...named,
          reason: result.problem,
          message:
            result.problem === 'AMBIGUOUS_FIELD'
              ? `names a field by remote_id ${'field_remote_id' in ref ? ref.field_remote_id : ''}, which several fields have: use field_id and svc_id`
              : 'is not a value of the account (unknown or deleted)',
        });
        return [];
      }
      const { coding } = result;
      if (coding.is_disabled || coding.field_is_disabled) {
        invalid.push({
          ...named,
          reason: coding.field_is_disabled ? 'FIELD_DISABLED' : 'VALUE_DISABLED',
          message: coding.field_is_disabled
            ? `is a value of the disabled field ${coding.field_name}`
            : `is the disabled value "${coding.value}" of ${coding.field_name}`,
        });
        return [];
      }
      if (fields.has(coding.field_id)) {
        twice.push({ path, message: `codes the field ${coding.field_name} a second time: one value per field` });
        return [];
      }
      fields.add(coding.field_id);
      return [codingOf(coding)];
    });
  });
  if (twice.length > 0) throw errors.invalidRequest(twice);
  if (invalid.length > 0) throw errors.invalidCoding(invalid);
  return out;
}

/** Minor units of a line's money, exact (the stored amounts were written from minor units). */
const minor = (money: Money): number => {
  const value = toMinor(money);
  if (typeof value !== 'number') throw errors.internal();
  return value;
};

async function editRecord(
  ex: Executor,
  caller: Caller,
  id: string,
  expectedVersion: number,
  edit: (record: StoredRecord, lines: LineItem[], economic: Map<string, number>) => Promise<Edit>,
): Promise<RecordWithSingleEntry> {
  // The clock lock first: it serialises the account's record writers, so the record read is current.
  const last = await recordClock.lock(ex, caller.accountId);
  const record = await accountingRepository.find(ex, caller.accountId, id);
  if (!record) throw notFound(id);
  const version = Number(record.version);
  if (!EDITABLE.includes(record.review_status)) throw errors.recordNotEditable(id, record.review_status, EDITABLE);
  if (expectedVersion !== version) throw errors.versionConflict(expectedVersion, version);
  const lines: LineItem[] = JSON.parse(record.line_items_json);
  const result = await edit(record, lines, economicIndex(record, lines));
  const updatedAt = await recordClock.advance(ex, caller.accountId, last, 1);
  const side = economicSideOf(record.type);
  const changed = await reviewRepository.updateLines(ex, caller.accountId, id, version, {
    lineItemsJson: JSON.stringify(result.lines),
    uncodedLines: result.lines.filter((l) => l.type === side && l.accounting_field_values.length === 0).length,
    updatedAt,
  });
  // Under the clock lock nothing else can have changed the record; a miss is a bug, not a race.
  if (!changed) throw errors.internal();
  await recordEvents(ex, caller, [
    { recordId: id, version: version + 1, type: result.type, occurredAt: updatedAt, changes: result.changes },
  ]);
  const updated = await accountingRepository.find(ex, caller.accountId, id);
  if (!updated) throw errors.internal();
  return {
    record: AccountingRecordShape.toObject(updated, { singleEntry: false }),
    single_entry: AccountingRecordShape.toObject(updated, { singleEntry: true }),
  };
}

/** Input problems about the lines named (not a line, the balancing line, named twice): 400 with every one. */
function checkLineIds(
  ids: readonly { path: string; id: string }[],
  economic: ReadonlyMap<string, number>,
  lines: readonly LineItem[],
): void {
  const problems: ValidationProblem[] = [];
  const seen = new Set<string>();
  for (const { path, id } of ids) {
    const problem = lineProblem(path, id, economic, lines);
    if (problem) problems.push(problem);
    else if (seen.has(id)) problems.push({ path, message: `names line ${id} a second time` });
    seen.add(id);
  }
  if (problems.length > 0) throw errors.invalidRequest(problems);
}

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

  /**
   * Splits an economic line into parts that sum exactly to it, each coded (as given, or as the line was); the
   * line's original amount is apportioned over the parts by their amounts, as ingestion apportions a record's.
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
      const parts = input.parts.map((part, i): LineItem => ({
        id: newId('accrli'),
        type: line.type,
        amount: fromMinor(amounts[i]!, record.currency),
        original_amount:
          originals && line.original_amount ? fromMinor(originals[i]!, line.original_amount.currency) : null,
        memo: part.memo === undefined ? line.memo : part.memo,
        accounting_field_values: part.field_values === undefined ? line.accounting_field_values : given[i]!,
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
   * Merges economic lines into one, in the place of the first of them: its amount (and original amount) their sum,
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
        memo: input.memo === undefined ? first.memo : input.memo,
        accounting_field_values: coding!,
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
