import type { Executor } from '../../db/database.js';
import { errors, type ValidationProblem } from '../../errors.js';
import type { Caller } from '../auth/auth.service.js';
import { fieldValuesService, type CodingRef } from '../field-values/field-values.service.js';
import { accountingRepository } from './accounting.repository.js';
import { AccountingRecordShape, storedForm } from './accounting.schemas.js';
import type { StoredRecord } from './accounting.tables.js';
import type { RecordWithSingleEntry } from './review.schemas.js';
import { recordEvents, type RecordChange } from './history.js';
import { codingOf } from './codings.js';
import { economicSideOf, type AccountingFieldValue, type LineItem } from './ledger.js';
import { EDITABLE } from './lifecycle.js';
import { toMinor, type Money } from './money.js';
import { recordClock } from './record-clock.repository.js';
import { reviewRepository } from './review.repository.js';

/**
 * What coding, splitting and merging lines share: one edit of a record's line items, allowed while the record is
 * under review (PREPARE, REVIEW), that bumps the version by one and moves updated_at under the record clock, as
 * every change does, so pollers see it, and is kept in the record's history; and the checks of the lines and
 * codings an edit names.
 */

/** An edit's new lines, and what its change records (history.ts). */
export type Edit = { lines: LineItem[] } & Extract<RecordChange, { type: 'CODED' | 'SPLIT' | 'MERGED' }>;

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
export async function codingsFor(
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
export const minor = (money: Money): number => {
  const value = toMinor(money);
  if (typeof value !== 'number') throw errors.internal();
  return value;
};

export async function editRecord(
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
    lineItemsJson: storedForm.lineItems(result.lines),
    uncodedLines: result.lines.filter((l) => l.type === side && l.accounting_field_values.length === 0).length,
    updatedAt,
  });
  // Under the clock lock nothing else can have changed the record; a miss is a bug, not a race.
  if (!changed) throw errors.internal();
  const { lines: _, ...change } = result;
  await recordEvents(ex, caller, [{ recordId: id, version: version + 1, occurredAt: updatedAt, ...change }]);
  const updated = await accountingRepository.find(ex, caller.accountId, id);
  if (!updated) throw errors.internal();
  return {
    record: AccountingRecordShape.toObject(updated, { singleEntry: false, accountId: caller.accountId }),
    single_entry: AccountingRecordShape.toObject(updated, { singleEntry: true, accountId: caller.accountId }),
  };
}

/** Input problems about the lines named (not a line, the balancing line, named twice): 400 with every one. */
export function checkLineIds(
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
