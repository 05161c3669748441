import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { Caller, Tenant } from '../auth/auth.service.js';
import { codingRulesService, type LineDecision, type RuleSubject } from '../coding-rules/coding-rules.service.js';
import { accountingRepository } from './accounting.repository.js';
import { storedForm } from './accounting.schemas.js';
import { recordEvents, type RecordEvent } from './history.js';
import type { StoredRecord } from './accounting.tables.js';
import { economicSideOf, type LineItem, type Side } from './ledger.js';
import { recordClock } from './record-clock.repository.js';
import { reviewRepository } from './review.repository.js';
import { marksOf, ruleCodingsOf, storedSubject, withChanges } from './rule-coding.js';
import { ruleCodingRepository } from './rule-coding.repository.js';

const PAGE = 500;

/** A record the rules change: its new line items and the CODED_BY_RULES event that says so. */
interface Changed {
  id: string;
  version: number;
  side: Side;
  items: LineItem[];
  change: Extract<RecordEvent, { type: 'CODED_BY_RULES' }>;
}

/** The record's line items with the rules' decisions, and the event naming the rule and version of each value. */
function changeOf(
  row: StoredRecord,
  subject: RuleSubject,
  items: LineItem[],
  economic: number[],
  decided: readonly LineDecision[],
): Changed {
  const lines = [...items];
  const event: Changed['change']['changes'] = { lines: [], memos: [], coded_by_rules: [] };
  for (const d of decided) {
    const at = economic[d.line]!;
    const line = lines[at]!;
    const after = withChanges(line.accounting_field_values, d.fields);
    if (d.fields.length > 0) event.lines.push({ line_id: line.id, before: line.accounting_field_values, after });
    if (d.memo) event.memos.push({ line_id: line.id, before: d.memo.before, after: d.memo.after });
    event.coded_by_rules.push(...ruleCodingsOf(line.id, d));
    lines[at] = { ...line, accounting_field_values: after, memo: d.memo ? d.memo.after : line.memo };
  }
  const version = Number(row.version);
  return {
    id: subject.id!,
    version,
    side: economicSideOf(row.type),
    items: lines,
    change: { recordId: subject.id!, version: version + 1, occurredAt: 0, type: 'CODED_BY_RULES', changes: event },
  };
}

/**
 * Writes a page's changed records under the locked clock (`last`: its value so far): each the next version and
 * updated_at, in batched statements (reviewRepository.updateLinesMany), which rule set each value, and the events.
 * Answers the clock's value after it.
 */
async function writePage(ex: Executor, caller: Caller, last: number, changed: readonly Changed[]): Promise<number> {
  if (changed.length === 0) return last;
  const first = await recordClock.advance(ex, caller.accountId, last, changed.length);
  const written = await reviewRepository.updateLinesMany(
    ex,
    caller.accountId,
    changed.map((c, i) => ({
      id: c.id,
      version: c.version,
      lineItemsJson: storedForm.lineItems(c.items),
      uncodedLines: c.items.filter((l) => l.type === c.side && l.accounting_field_values.length === 0).length,
      updatedAt: first + i,
    })),
  );
  // Under the clock lock nothing else can have changed the records; a miss is a bug, not a race (and rolls back).
  if (written !== changed.length) throw errors.internal();
  changed.forEach((c, i) => (c.change.occurredAt = first + i));
  await codingRulesService.markApplied(
    ex,
    caller,
    changed.flatMap((c) => marksOf(c.id, c.change.changes.coded_by_rules)),
    first,
  );
  await recordEvents(
    ex,
    caller,
    changed.map((c) => c.change),
  );
  return first + changed.length - 1;
}

/**
 * What coding rules ask of accounting beyond ingestion: the records under review (PREPARE, REVIEW) as rule
 * subjects, and the rules' changes written to them, each record's version bumped and its history naming the rules.
 */
export const ruleCodingService = {
  /** The account's records under review (among `ids` when given), a page at a time, in creation order. */
  async *editableSubjects(ex: Executor, tenant: Tenant, ids: readonly string[] | null) {
    let after = '';
    for (;;) {
      const rows = await ruleCodingRepository.editablePage(ex, tenant.accountId, after, PAGE, ids);
      if (rows.length === 0) return;
      yield rows.map((row) => ({ version: Number(row.version), subject: storedSubject(row).subject }));
      if (rows.length < PAGE) return;
      after = rows.at(-1)!.id;
    }
  },

  /**
   * Applies what `decide` says to the account's records under review (among `ids`: 404 naming those the account
   * does not have; those not under review are left alone), all in the caller's
   * transaction under the account's record clock: each changed record gets the next version, a new updated_at
   * and a CODED_BY_RULES event naming the rule and version of every value set. Answers the changed ids in order.
   */
  async apply(
    ex: Executor,
    caller: Caller,
    ids: readonly string[] | null,
    decide: (subjects: RuleSubject[]) => Promise<LineDecision[][]>,
  ): Promise<string[]> {
    const last = await recordClock.lock(ex, caller.accountId);
    if (ids) {
      const found = new Set((await accountingRepository.statesOf(ex, caller.accountId, ids)).map((s) => s.id));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw errors.notFound(`Accounting records ${missing.join(', ')}`, { not_found_accounting_record_ids: missing });
      }
    }
    const changedIds: string[] = [];
    let clock = last;
    let after = '';
    for (;;) {
      const rows = await ruleCodingRepository.editablePage(ex, caller.accountId, after, PAGE, ids);
      if (rows.length === 0) break;
      const read = rows.map(storedSubject);
      const decisions = await decide(read.map((r) => r.subject));
      const changed = read.flatMap(({ subject, items, economic }, r) => {
        const decided = decisions[r]!;
        return decided.length === 0 ? [] : [changeOf(rows[r]!, subject, items, economic, decided)];
      });
      // Each page written before the next is read: only a page's changes are held at a time.
      clock = await writePage(ex, caller, clock, changed);
      changedIds.push(...changed.map((c) => c.id));
      if (rows.length < PAGE) break;
      after = rows.at(-1)!.id;
    }
    return changedIds;
  },
};
