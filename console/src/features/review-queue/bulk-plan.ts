import type { RecordsAllowedMoves } from '@svc/client';
import type { ReviewStatus } from '../../lib/labels';
import { backwardMove } from '../../lib/review-moves';

/**
 * What a bulk action will do to the selected records, read from the server's allowed_moves (never from rules of
 * the console's own): which records go where, which cannot and why (the server's words), and which could be
 * approved once submitted. Moves carry the version the user saw: a record changed since is refused by the move.
 */

type RecordMoves = RecordsAllowedMoves['items'][number];

export type BulkAction = 'approve' | 'sendBack';

export interface PlannedRecord {
  id: string;
  version: number;
}

export interface RefusedRecord {
  id: string;
  reason: string;
}

export interface BulkPlan {
  action: BulkAction;
  /** The records each allowed move takes, by target state. */
  moves: { to: ReviewStatus; records: PlannedRecord[] }[];
  refused: RefusedRecord[];
  /** Refused records (also in `refused`) that may get there through these states first: submit, then approve. */
  via: { through: ReviewStatus[]; to: ReviewStatus; records: PlannedRecord[] } | null;
  /** How many records were asked about. */
  asked: number;
}

const APPROVED: ReviewStatus = 'READY_FOR_EXPORT';

function addTo(moves: BulkPlan['moves'], to: ReviewStatus, record: PlannedRecord) {
  const group = moves.find((m) => m.to === to);
  if (group) group.records.push(record);
  else moves.push({ to, records: [record] });
}

/** Approve: the move to READY_FOR_EXPORT, where the server allows it. */
function planApprove(items: RecordMoves[], missing: RefusedRecord[]): BulkPlan {
  const plan: BulkPlan = { action: 'approve', moves: [], refused: [...missing], via: null, asked: 0 };
  for (const item of items) {
    const record = { id: item.id, version: item.version };
    const move = item.allowed_moves.find((m) => m.to === APPROVED);
    if (!move) {
      plan.refused.push({ id: item.id, reason: 'It is already approved (Ready for export).' });
    } else if (move.allowed) {
      addTo(plan.moves, APPROVED, record);
    } else {
      plan.refused.push({ id: item.id, reason: move.reason });
      const through = move.allowed_via ?? [];
      if (through.length > 0) {
        plan.via ??= { through, to: APPROVED, records: [] };
        if (through.join() === plan.via.through.join()) plan.via.records.push(record);
      }
    }
  }
  return plan;
}

/** Send back: each record's allowed backward move (records in different states go to different states). */
function planSendBack(items: RecordMoves[], missing: RefusedRecord[]): BulkPlan {
  const plan: BulkPlan = { action: 'sendBack', moves: [], refused: [...missing], via: null, asked: 0 };
  for (const item of items) {
    const move = backwardMove(item.allowed_moves);
    if (!move)
      plan.refused.push({
        id: item.id,
        reason: 'It is at the first step of review: there is nowhere to send it back to.',
      });
    else if (move.allowed) addTo(plan.moves, move.to, { id: item.id, version: item.version });
    else plan.refused.push({ id: item.id, reason: move.reason });
  }
  return plan;
}

/** The plan of `action` for the records selected (each at the version the user saw), from the server's answer. */
export function planBulk(action: BulkAction, selected: PlannedRecord[], answer: RecordsAllowedMoves): BulkPlan {
  const byId = new Map(answer.items.map((item) => [item.id, item]));
  const missing: RefusedRecord[] = [];
  const current: RecordMoves[] = [];
  for (const { id, version } of selected) {
    const item = byId.get(id);
    // Moved at the version the user saw: a record changed since is the move's to refuse (VERSION_CONFLICT).
    if (item) current.push({ ...item, version });
    else missing.push({ id, reason: 'There is no such record in this account (it may have been removed).' });
  }
  const plan = action === 'approve' ? planApprove(current, missing) : planSendBack(current, missing);
  plan.asked = selected.length;
  // In the order selected.
  const order = new Map(selected.map((r, i) => [r.id, i]));
  plan.refused.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return plan;
}

/** How many records the plan moves as it stands. */
export const movingCount = (plan: BulkPlan) => plan.moves.reduce((n, m) => n + m.records.length, 0);
