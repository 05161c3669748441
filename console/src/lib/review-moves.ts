import type { ReviewMove } from '@svc/client';
import type { ReviewStatus } from './labels';

/**
 * Reading the server's allowed_moves: which of them a button stands for. The console decides nothing about
 * whether a move may happen; it only names the moves it offers (submit, approve, send back).
 */

const APPROVED: ReviewStatus = 'READY_FOR_EXPORT';
const SUBMITTED: ReviewStatus = 'REVIEW';

const forwardTo = (moves: readonly ReviewMove[], to: ReviewStatus) =>
  moves.find((m) => m.to === to && m.direction === 'FORWARD');

/** The backward move a record allows, the nearest one when several: send back never moves a record forward. */
export function backwardMove(moves: readonly ReviewMove[]): ReviewMove | undefined {
  const back = moves.filter((m) => m.direction === 'BACK');
  return back.filter((m) => m.allowed).at(-1) ?? back.at(-1);
}

export type RecordActionKind = 'submit' | 'approve' | 'submitAndApprove' | 'sendBack';

/** A button of the record page: the states it moves the record through, in order, or why it cannot. */
export interface RecordAction {
  kind: RecordActionKind;
  label: string;
  /** Each state the record is moved to, one move each (submit and approve: REVIEW, then READY_FOR_EXPORT). */
  steps: ReviewStatus[];
  /** The server's words when the move is not allowed now; null when it is. */
  refusal: string | null;
}

const LABELS: Record<RecordActionKind, string> = {
  submit: 'Submit for review',
  approve: 'Approve',
  submitAndApprove: 'Submit and approve',
  sendBack: 'Send back',
};

/** The moves the record page offers, from the record's allowed_moves (in lifecycle order). */
export function recordActions(moves: readonly ReviewMove[]): RecordAction[] {
  const actions: RecordAction[] = [];
  const add = (kind: RecordActionKind, steps: ReviewStatus[], move: ReviewMove) =>
    actions.push({ kind, label: LABELS[kind], steps, refusal: move.allowed ? null : move.reason });
  const submit = forwardTo(moves, SUBMITTED);
  if (submit) add('submit', [SUBMITTED], submit);
  const approve = forwardTo(moves, APPROVED);
  if (approve) {
    add('approve', [APPROVED], approve);
    if (!approve.allowed && approve.allowed_via?.length) {
      actions.push({
        kind: 'submitAndApprove',
        label: LABELS.submitAndApprove,
        steps: [...approve.allowed_via, APPROVED],
        refusal: null,
      });
    }
  }
  const back = backwardMove(moves);
  if (back) add('sendBack', [back.to], back);
  return actions;
}

/** True when the caller may make none of the moves (its role reads records only): nothing to offer. */
export const mayMoveNothing = (moves: readonly ReviewMove[]) =>
  moves.every((m) => !m.allowed && m.reason_code === 'FORBIDDEN');
