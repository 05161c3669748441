import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso } from '../../lib/clock.js';
import type { Caller } from '../auth/auth.service.js';
import { accountingRepository, CountDeltas } from './accounting.repository.js';
import { recordEvents } from './history.js';
import type { ReviewStatus } from './lifecycle.js';
import { moveRefusals, NO_READY_RULES, PLAIN_REASONS, readyRules, type MoveProblem } from './move-rules.js';
import { receiptPolicy } from './receipt-policy.js';
import { recordClock } from './record-clock.repository.js';
import { reviewRepository, type ReviewState } from './review.repository.js';
import type { BulkMoveInput } from './review.schemas.js';

/**
 * Review moves of many records at once (the console's "approve" and "send back"), all or nothing by default: every
 * record is checked (it exists, is at the expected version, and may make the move: move-rules.ts) before any moves.
 * A refusal lists every record that fails, each with its own code; the answer's status is that of the gravest: 404,
 * then 409, then 422. Asked for `partial`, the records that may move do, and the answer lists the others.
 */

const GRAVITY = ['NOT_FOUND', 'VERSION_CONFLICT', 'INVALID_TRANSITION', 'CODING_REQUIRED', 'RECEIPT_REQUIRED'] as const;

/** Every reason each record cannot make the move (none: it can). */
async function problemsOf(
  ex: Executor,
  caller: Caller,
  input: BulkMoveInput,
  states: ReadonlyMap<string, ReviewState>,
): Promise<MoveProblem[]> {
  const problems: MoveProblem[] = [];
  const movable: ReviewState[] = [];
  for (const { id, version } of input.records) {
    const state = states.get(id);
    if (!state) {
      problems.push({
        accounting_record_id: id,
        error_code: 'NOT_FOUND',
        message: `Accounting record ${id} not found.`,
        reason: PLAIN_REASONS.NOT_FOUND,
      });
    } else if (version !== undefined && version !== state.version) {
      problems.push({
        accounting_record_id: id,
        error_code: 'VERSION_CONFLICT',
        message: `The record is at version ${state.version}, not ${version}.`,
        reason: PLAIN_REASONS.VERSION_CONFLICT(state.version),
        expected_version: version,
        current_version: state.version,
      });
    } else {
      movable.push(state);
    }
  }
  const rules = input.review_status === 'READY_FOR_EXPORT' ? await readyRules(ex, caller) : NO_READY_RULES;
  problems.push(...moveRefusals(rules, movable, input.review_status).values());
  // In the request's order, whatever the problem.
  const order = new Map(input.records.map((r, i) => [r.id, i]));
  return problems.sort((a, b) => order.get(a.accounting_record_id)! - order.get(b.accounting_record_id)!);
}

/** A planned move: the clock's last value, each record's state, and every reason a record cannot move. */
interface Plan {
  last: number;
  states: ReadonlyMap<string, ReviewState>;
  problems: MoveProblem[];
}

async function plan(ex: Executor, caller: Caller, input: BulkMoveInput): Promise<Plan> {
  // The clock lock first: it serialises the account's record writers, so the states read are current.
  const last = await recordClock.lock(ex, caller.accountId);
  const ids = input.records.map((r) => r.id);
  const withLines = input.review_status === 'READY_FOR_EXPORT';
  const states = new Map((await reviewRepository.states(ex, caller.accountId, ids, withLines)).map((s) => [s.id, s]));
  return { last, states, problems: await problemsOf(ex, caller, input, states) };
}

interface MovedRecord {
  id: string;
  review_status: ReviewStatus;
  version: number;
  updated_at: string;
}

/** Moves every record of `input` (none with a problem); answers each record's new state, in order. */
async function apply(
  ex: Executor,
  caller: Caller,
  input: BulkMoveInput,
  { last, states }: Plan,
): Promise<MovedRecord[]> {
  const ids = input.records.map((r) => r.id);
  const first = await recordClock.advance(ex, caller.accountId, last, ids.length);
  const moves = ids.map((id, i) => {
    const state = states.get(id)!;
    return { id, from: state.review_status, version: state.version, to: input.review_status, updatedAt: first + i };
  });
  // Under the clock lock nothing else can have moved these records; a shortfall is a bug, not a race.
  if ((await reviewRepository.moveMany(ex, caller.accountId, moves)) !== moves.length) throw errors.internal();
  const deltas = new CountDeltas();
  for (const move of moves) {
    const { source_type } = states.get(move.id)!;
    deltas.add(source_type, move.from, -1).add(source_type, move.to, 1);
  }
  await accountingRepository.adjustCounts(ex, caller.accountId, deltas);
  await recordEvents(
    ex,
    caller,
    moves.map((m) => ({
      recordId: m.id,
      version: m.version + 1,
      type: 'MOVED',
      occurredAt: m.updatedAt,
      changes: { review_status: { from: m.from, to: m.to } },
    })),
  );
  return moves.map((m) => ({
    id: m.id,
    review_status: m.to,
    version: m.version + 1,
    updated_at: microsToIso(m.updatedAt),
  }));
}

/** `partial`: moves the records of a plan that may move, and names the others with their problems. */
async function movePartly(ex: Executor, caller: Caller, input: BulkMoveInput, planned: Plan) {
  const refused = new Set(planned.problems.map((p) => p.accounting_record_id));
  const movable = { ...input, records: input.records.filter((r) => !refused.has(r.id)) };
  const items = movable.records.length > 0 ? await apply(ex, caller, movable, planned) : [];
  return { items, not_moved: planned.problems };
}

/** A record's one problem, answered as the move of one record answers it (the error of its own code). */
function problemError(problem: MoveProblem) {
  const id = problem.accounting_record_id;
  switch (problem.error_code) {
    case 'NOT_FOUND':
      return errors.notFound(`Accounting record ${id}`, { accounting_record_id: id });
    case 'VERSION_CONFLICT':
      return errors.versionConflict(Number(problem.expected_version), Number(problem.current_version));
    case 'INVALID_TRANSITION':
      return errors.invalidTransition(String(problem.from), String(problem.to));
    case 'CODING_REQUIRED':
      return errors.codingRequired([{ accounting_record_id: id, lines: problem.lines }]);
    case 'RECEIPT_REQUIRED': {
      const shortfall = {
        record_type: String(problem.record_type),
        currency: String(problem.currency),
        amount_minor: Number(problem.amount_minor),
        above_minor: Number(problem.above_minor),
      };
      return errors.receiptRequired({ accounting_record_id: id, ...shortfall }, receiptPolicy.shown(shortfall));
    }
  }
}

/**
 * The one review move: of many records (the console's "approve" and "send back"), or of one, which is a move of
 * many with one record: the same checks, the same writes. Only the refusal's form differs: a bulk lists every
 * record's problem under the gravest code; a single move answers its record's problem with that problem's own code.
 */
export const reviewService = {
  /**
   * Moves up to 1000 records to one review state, all or nothing (or, asked for `partial`, those that may);
   * answers each moved record's new state, in order.
   */
  async moveMany(
    ex: Executor,
    caller: Caller,
    input: BulkMoveInput,
  ): Promise<{ items: MovedRecord[]; not_moved?: MoveProblem[] }> {
    const seen = new Set<string>();
    const twice = input.records.flatMap((r, i) => {
      const repeated = seen.has(r.id);
      seen.add(r.id);
      return repeated ? [{ path: `/records/${i}/id`, message: `names record ${r.id} a second time` }] : [];
    });
    if (twice.length > 0) throw errors.invalidRequest(twice);
    const planned = await plan(ex, caller, input);
    if (input.partial) return movePartly(ex, caller, input, planned);
    if (planned.problems.length > 0) {
      const gravest = GRAVITY.find((code) => planned.problems.some((p) => p.error_code === code))!;
      throw errors.bulkMoveRefused(gravest, input.records.length, planned.problems);
    }
    return { items: await apply(ex, caller, input, planned) };
  },

  /** Moves one record (never to EXPORTED); `version`, when given, must be its current one. */
  async moveOne(
    ex: Executor,
    caller: Caller,
    id: string,
    move: { review_status: ReviewStatus; version?: number },
  ): Promise<void> {
    const input: BulkMoveInput = { review_status: move.review_status, records: [{ id, version: move.version }] };
    const planned = await plan(ex, caller, input);
    // A record has at most one problem: the first check it fails.
    const [problem] = planned.problems;
    if (problem) throw problemError(problem);
    await apply(ex, caller, input, planned);
  },
};
