import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { AuthContext } from '../auth/auth.service.js';
import { accountingRepository } from './accounting.repository.js';
import { codingEditable, CODING_SCOPES } from './coding-editable.js';
import { REVIEW_STATUSES, type ReviewStatus } from './lifecycle.js';
import { moveDirection, moveRefusals, MOVE_SCOPES, PLAIN_REASONS, readyRules, type ReadyRules } from './move-rules.js';
import { AccountingRecordShape } from './record.shape.js';
import { reviewRepository, type ReviewState } from './review.repository.js';
import type { AllowedMove, RecordMoves, RecordWithAllowedMoves } from './allowed-moves.schemas.js';

/**
 * A record's `allowed_moves`: every review state other than its own, each allowed or not, and why not, as the
 * move itself would decide it now for this caller (move-rules.ts decides both). The console offers only these.
 */

/** The states between `from` and `to` (exclusive), forward only: where a one-step-at-a-time path goes. */
function between(from: ReviewStatus, to: ReviewStatus): ReviewStatus[] {
  const a = REVIEW_STATUSES.indexOf(from);
  const b = REVIEW_STATUSES.indexOf(to);
  return b > a + 1 ? REVIEW_STATUSES.slice(a + 1, b) : [];
}

/** True when the record could reach `to` through `via`, each step a move the rules allow. */
function reachable(rules: ReadyRules, state: ReviewState, via: ReviewStatus[], to: ReviewStatus) {
  let at = state;
  for (const step of [...via, to]) {
    if (moveRefusals(rules, [at], step).size > 0) return false;
    at = { ...at, review_status: step };
  }
  return true;
}

function movesOf(
  rules: ReadyRules,
  mayMove: boolean,
  state: ReviewState,
  refusals: ReadonlyMap<ReviewStatus, ReturnType<typeof moveRefusals>>,
): AllowedMove[] {
  return REVIEW_STATUSES.filter((to) => to !== state.review_status).map((to): AllowedMove => {
    const direction = moveDirection(state.review_status, to);
    if (!mayMove) return { to, direction, allowed: false, reason_code: 'FORBIDDEN', reason: PLAIN_REASONS.FORBIDDEN };
    const refusal = refusals.get(to)!.get(state.id);
    if (!refusal) return { to, direction, allowed: true };
    const via = between(state.review_status, to);
    const reason_code =
      refusal.error_code === 'CODING_REQUIRED' || refusal.error_code === 'RECEIPT_REQUIRED'
        ? refusal.error_code
        : 'INVALID_TRANSITION';
    return {
      to,
      direction,
      allowed: false,
      reason_code,
      reason: refusal.reason,
      ...(via.length > 0 && reachable(rules, state, via, to) ? { allowed_via: via } : {}),
    };
  });
}

/** Each state's allowed moves for this caller. `states` carry their lines and receipts (READY_FOR_EXPORT's rules read them). */
async function allowedMovesOf(
  ex: Executor,
  auth: AuthContext,
  states: readonly ReviewState[],
): Promise<Map<string, AllowedMove[]>> {
  const mayMove = MOVE_SCOPES.some((scope) => auth.scopes.has(scope));
  const rules = await readyRules(ex, auth);
  const refusals = new Map(REVIEW_STATUSES.map((to) => [to, moveRefusals(rules, states, to)]));
  return new Map(states.map((s) => [s.id, movesOf(rules, mayMove, s, refusals)]));
}

/** Where the console's record answer gets its coding suggestions (the suggestions module, which builds on this one). */
export interface SuggestionsPort {
  suggestionsOf(ex: Executor, tenant: AuthContext, id: string): Promise<object[]>;
}

export const allowedMovesService = {
  /**
   * A record (double entry and single entry) with its allowed moves and, for a caller who may code, its coding
   * suggestions, all in the caller's read `ex`; 404 when not the caller's.
   */
  async record(
    ex: Executor,
    auth: AuthContext,
    id: string,
    suggestions: SuggestionsPort,
  ): Promise<RecordWithAllowedMoves> {
    const row = await accountingRepository.find(ex, auth.accountId, id);
    if (!row) throw errors.notFound(`Accounting record ${id}`, { accounting_record_id: id });
    const { type, source_type, review_status, currency, line_items_json, receipts_json } = row;
    const state: ReviewState = {
      id,
      type,
      source_type,
      review_status,
      version: Number(row.version),
      currency,
      amount_minor: Number(row.amount_minor),
      line_items_json,
      receipts_json,
    };
    const moves = await allowedMovesOf(ex, auth, [state]);
    return {
      record: AccountingRecordShape.toObject(row, { singleEntry: false, accountId: auth.accountId }),
      single_entry: AccountingRecordShape.toObject(row, { singleEntry: true, accountId: auth.accountId }),
      allowed_moves: moves.get(id)!,
      coding: codingEditable(auth, review_status),
      // Those who may code are shown its suggestions (as GET …/suggestions requires).
      suggestions: CODING_SCOPES.some((scope) => auth.scopes.has(scope))
        ? await suggestions.suggestionsOf(ex, auth, id)
        : null,
    };
  },

  /** The allowed moves of each record named that is the caller's, in the order named; others are left out. */
  async many(ex: Executor, auth: AuthContext, ids: readonly string[]): Promise<{ items: RecordMoves[] }> {
    const unique = [...new Set(ids)];
    const states = new Map(
      (await reviewRepository.states(ex, auth.accountId, unique, true)).map((s) => [s.id, s] as const),
    );
    const moves = await allowedMovesOf(ex, auth, [...states.values()]);
    return {
      items: unique.flatMap((id) => {
        const state = states.get(id);
        if (!state) return [];
        const { review_status, version } = state;
        return [{ id, review_status, version, allowed_moves: moves.get(id)! }];
      }),
    };
  },
};
