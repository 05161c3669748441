import type { AccountingRecord, RecordEvent } from '@svc/client';
import { REVIEW_STATUS_LABELS } from '../../lib/labels';

/** What changed between the version a user edited and the current one, and who changed it, in words. */
export interface ConflictChanges {
  /** The versions compared: the one the user's page showed, and the record's now. */
  from: number;
  to: number;
  /** Who changed it since, each once, in the order they acted. */
  who: string[];
  /** One line per difference: its review state, its lines (split, merged), each line's coding, its receipts. */
  what: string[];
}

type Line = AccountingRecord['line_items'][number];

function actorWords(actor: RecordEvent['actor'], me: string): string {
  if (actor.type === 'user') {
    if (actor.id === me) return 'you (in another tab or window)';
    return actor.name ?? `a user no longer in the account (${actor.id})`;
  }
  if (actor.type === 'client') return `API client ${actor.id}`;
  return actor.id;
}

/** A line's coding as field name → value name. */
function codingOf(line: Line): Map<string, string> {
  return new Map(line.accounting_field_values.map((v) => [v.field_name, v.field_value_name]));
}

function codingChanges(before: Line, after: Line, number: number): string[] {
  const was = codingOf(before);
  const now = codingOf(after);
  const names = [...new Set([...was.keys(), ...now.keys()])].sort();
  return names.flatMap((name) => {
    const a = was.get(name);
    const b = now.get(name);
    return a === b ? [] : [`Line ${number}, ${name}: ${a ?? 'none'} → ${b ?? 'none'}`];
  });
}

/**
 * The differences a person would look for before choosing to keep their edits or reload: `seen` and `current` are
 * the record as single entry (its economic lines, the coded ones) at the version edited and now; `events` the
 * history's events after the version edited.
 */
export function conflictChanges(
  seen: AccountingRecord,
  current: AccountingRecord,
  events: readonly RecordEvent[],
  me: string,
): ConflictChanges {
  const who = [...new Set(events.filter((e) => e.version > seen.version).map((e) => actorWords(e.actor, me)))];
  const what: string[] = [];
  if (seen.review_status !== current.review_status) {
    what.push(`Status: ${REVIEW_STATUS_LABELS[seen.review_status]} → ${REVIEW_STATUS_LABELS[current.review_status]}`);
  }
  const before = new Map(seen.line_items.map((line) => [line.id, line]));
  const sameLines =
    seen.line_items.length === current.line_items.length && current.line_items.every((line) => before.has(line.id));
  if (!sameLines) {
    what.push(`Lines: ${seen.line_items.length} → ${current.line_items.length} (split or merged)`);
  }
  current.line_items.forEach((line, i) => {
    const was = before.get(line.id);
    if (was) what.push(...codingChanges(was, line, i + 1));
  });
  const receipts = [seen.receipts?.length ?? 0, current.receipts?.length ?? 0];
  if (receipts[0] !== receipts[1]) what.push(`Receipts: ${receipts[0]} → ${receipts[1]}`);
  if ((seen.memo ?? '') !== (current.memo ?? '')) what.push('Memo changed');
  return { from: seen.version, to: current.version, who, what };
}
