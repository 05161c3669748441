import type { Executor } from '../../db/database.js';
import { transitionRefusal } from '../../errors.js';
import type { Tenant } from '../auth/auth.service.js';
import { canMove, REVIEW_STATUSES, type ReviewStatus } from './lifecycle.js';
import { requiredCoding, type CodedRecord, type MissingCoding, type RequiredField } from './required-coding.js';
import { receiptPolicy, type ReceiptRule, type ReceiptShortfall } from './receipt-policy.js';
import type { ReviewState } from './review.repository.js';
import { economicLines, type LineItem } from './ledger.js';

/**
 * The one place that decides whether a record may make a review move: the move itself (one record or many) and
 * a record's `allowed_moves` both ask `moveRefusals`, so what the console is told is allowed is exactly what a
 * move would accept. Existence and versions are the move's own checks (a record read is at its version).
 */

/** The scopes that may move records through review (any one suffices): the move route's and allowed_moves'. */
export const MOVE_SCOPES = ['accounting.record.review', 'accounting.record.admin'] as const;

export type MoveErrorCode =
  'NOT_FOUND' | 'VERSION_CONFLICT' | 'INVALID_TRANSITION' | 'CODING_REQUIRED' | 'RECEIPT_REQUIRED';

/** What the account requires of a record before READY_FOR_EXPORT: its required coding and its receipt policy. */
export interface ReadyRules {
  required: readonly RequiredField[];
  receipts: readonly ReceiptRule[];
}

/** Nothing required: what a move to another state than READY_FOR_EXPORT checks. */
export const NO_READY_RULES: ReadyRules = { required: [], receipts: [] };

/** The account's rules of READY_FOR_EXPORT, read in the caller's transaction. */
export async function readyRules(ex: Executor, tenant: Tenant): Promise<ReadyRules> {
  return { required: await requiredCoding.fields(ex, tenant), receipts: await receiptPolicy.rules(ex, tenant) };
}

export interface MoveProblem {
  accounting_record_id: string;
  error_code: MoveErrorCode;
  message: string;
  /** The same, in plain words for a person (the console shows it). */
  reason: string;
  [detail: string]: unknown;
}

/** Each review state as a person reads it. */
export const LABELS: Readonly<Record<ReviewStatus, string>> = {
  PREPARE: 'Prepare',
  REVIEW: 'Review',
  READY_FOR_EXPORT: 'Ready for export',
  EXPORTED: 'Exported',
};

/** FORWARD: towards EXPORTED; BACK: towards PREPARE ("send back"). */
export function moveDirection(from: ReviewStatus, to: ReviewStatus): 'FORWARD' | 'BACK' {
  return REVIEW_STATUSES.indexOf(to) > REVIEW_STATUSES.indexOf(from) ? 'FORWARD' : 'BACK';
}

/** Why the lifecycle refuses from → to, in plain words. */
function transitionReason(from: ReviewStatus, to: ReviewStatus): string {
  if (from === to) return `It is already in ${LABELS[to]}.`;
  if (to === 'EXPORTED') return 'Only a successful export moves a record to Exported.';
  if (from === 'EXPORTED') return 'An exported record can only be reopened to Review.';
  if (from === 'PREPARE' && to === 'READY_FOR_EXPORT') {
    return 'It is still in Prepare: it has to be submitted for review before it can be approved.';
  }
  return moveDirection(from, to) === 'FORWARD'
    ? `It is in ${LABELS[from]}: records go forward one step at a time, so it cannot go straight to ${LABELS[to]}.`
    : `It is in ${LABELS[from]}: records go back one step at a time, so it cannot go straight back to ${LABELS[to]}.`;
}

function codingReason(lines: MissingCoding['lines']): string {
  const each = lines.map((l) => `line ${l.index + 1} needs ${l.missing_fields.map((f) => f.field_name).join(' and ')}`);
  return `It lacks the coding required before approval: ${each.join('; ')}.`;
}

function receiptReason(shortfall: ReceiptShortfall): string {
  const shown = receiptPolicy.shown(shortfall);
  return `It needs a receipt before approval: its amount, ${shown.amount}, is above ${shown.above}, the account's receipt threshold for this type of record.`;
}

/** How many receipts a record lists (uploaded to svc or sent with their own links). */
function receiptCount(receiptsJson: string | null): number {
  const receipts: unknown = receiptsJson === null ? [] : JSON.parse(receiptsJson);
  return Array.isArray(receipts) ? receipts.length : 0;
}

/** The coding of a record's economic lines, as the required-coding check reads it. */
export function codedRecord(state: Pick<ReviewState, 'id' | 'type' | 'line_items_json'>): CodedRecord {
  const lines: LineItem[] = state.line_items_json === null ? [] : JSON.parse(state.line_items_json);
  return {
    ref: { accounting_record_id: state.id },
    lines: economicLines(state.type, lines).map((l) => ({ lineId: l.id, codings: l.accounting_field_values })),
  };
}

/**
 * Why each record (found, at the version the caller expects) may not move to `to`, by id: the lifecycle first,
 * then, towards READY_FOR_EXPORT, the account's required coding, then its receipt policy (one problem a record: the
 * first it meets). A record not in the map may make the move. `states` must carry their lines and receipts when
 * `to` is READY_FOR_EXPORT.
 */
export function moveRefusals(
  rules: ReadyRules,
  states: readonly ReviewState[],
  to: ReviewStatus,
): Map<string, MoveProblem> {
  const refused = new Map<string, MoveProblem>();
  const toCheck: CodedRecord[] = [];
  for (const state of states) {
    const from = state.review_status;
    if (!canMove(from, to)) {
      refused.set(state.id, {
        accounting_record_id: state.id,
        error_code: 'INVALID_TRANSITION',
        message: transitionRefusal(from, to),
        reason: transitionReason(from, to),
        from,
        to,
      });
    } else if (to === 'READY_FOR_EXPORT') {
      toCheck.push(codedRecord(state));
    }
  }
  for (const missing of requiredCoding.missing(rules.required, toCheck)) {
    const id = 'accounting_record_id' in missing.ref ? missing.ref.accounting_record_id : '';
    refused.set(id, {
      accounting_record_id: id,
      error_code: 'CODING_REQUIRED',
      message: 'Lines lack the coding the account requires before READY_FOR_EXPORT.',
      reason: codingReason(missing.lines),
      lines: missing.lines,
    });
  }
  if (to !== 'READY_FOR_EXPORT' || rules.receipts.length === 0) return refused;
  for (const state of states) {
    if (refused.has(state.id)) continue;
    const subject = {
      type: state.type,
      currency: state.currency,
      amountMinor: state.amount_minor,
      receipts: receiptCount(state.receipts_json),
    };
    const shortfall = receiptPolicy.shortfall(rules.receipts, subject);
    if (!shortfall) continue;
    refused.set(state.id, {
      accounting_record_id: state.id,
      error_code: 'RECEIPT_REQUIRED',
      message: "The record needs a receipt before READY_FOR_EXPORT (the account's receipt policy).",
      reason: receiptReason(shortfall),
      ...shortfall,
    });
  }
  return refused;
}

export const PLAIN_REASONS = {
  NOT_FOUND: 'There is no such record in this account (it may have been removed).',
  VERSION_CONFLICT: (current: number) =>
    `Someone changed it after you loaded it (it is now at version ${current}): reload to see the change first.`,
  FORBIDDEN: 'Your role may see records but not move them through review.',
};
