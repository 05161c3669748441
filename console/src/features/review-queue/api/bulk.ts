import type { NotMovedRecord } from '@svc/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { client } from '../../../lib/client';
import type { ReviewStatus } from '../../../lib/labels';
import { queryKeys } from '../../../lib/query-keys';
import type { BulkAction, BulkPlan, PlannedRecord } from '../bulk-plan';
import { planBulk } from '../bulk-plan';

/** Asks the server which moves the selected records allow, and plans the action from its answer. */
export function usePlanBulk() {
  return useMutation({
    mutationFn: async (input: { action: BulkAction; records: PlannedRecord[] }): Promise<BulkPlan> =>
      planBulk(input.action, input.records, await client.review.allowedMoves(input.records.map((r) => r.id))),
  });
}

export interface BulkOutcome {
  action: BulkAction;
  /** How many records reached each state. */
  moved: { to: ReviewStatus; count: number }[];
  /** Of those approved, how many were submitted first. */
  submittedFirst: number;
  /** Records moved through a first step (submitted) but not to the end: where they are now. */
  stoppedAt: { to: ReviewStatus; count: number }[];
  notMoved: NotMovedRecord[];
}

function count(list: BulkOutcome['moved'], to: ReviewStatus, n: number) {
  if (n === 0) return;
  const entry = list.find((e) => e.to === to);
  if (entry) entry.count += n;
  else list.push({ to, count: n });
}

/**
 * Carries out a plan. `partial`: the records that may move do and the others are named with the server's reason
 * (the user chose to go on without the refused ones); otherwise a plan of one move is all or nothing, and a refusal
 * is the mutation's error. `withVia`: the records that may be approved once submitted are submitted first.
 */
export function useRunBulk() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ plan, partial, withVia }: { plan: BulkPlan; partial: boolean; withVia: boolean }) => {
      const outcome: BulkOutcome = { action: plan.action, moved: [], submittedFirst: 0, stoppedAt: [], notMoved: [] };
      const groups = plan.moves.map((m) => ({ to: m.to, records: [...m.records] }));
      const through = new Set<string>();
      if (withVia && plan.via) {
        let records = plan.via.records;
        for (const step of plan.via.through) {
          const answer = await client.review.moveRecords({ review_status: step, records, partial: true });
          outcome.notMoved.push(...(answer.not_moved ?? []));
          records = answer.items.map((item) => ({ id: item.id, version: item.version }));
        }
        records.forEach((r) => through.add(r.id));
        const group = groups.find((g) => g.to === plan.via!.to);
        if (group) group.records.push(...records);
        else groups.push({ to: plan.via.to, records });
      }
      const allOrNothing = !partial && !withVia && groups.length === 1;
      for (const group of groups) {
        if (group.records.length === 0) continue;
        const answer = await client.review.moveRecords({
          review_status: group.to,
          records: group.records,
          ...(allOrNothing ? {} : { partial: true }),
        });
        count(outcome.moved, group.to, answer.items.length);
        outcome.submittedFirst += answer.items.filter((item) => through.has(item.id)).length;
        const stopped = (answer.not_moved ?? []).filter((n) => through.has(n.accounting_record_id));
        if (plan.via) count(outcome.stoppedAt, plan.via.through.at(-1)!, stopped.length);
        outcome.notMoved.push(...(answer.not_moved ?? []));
      }
      return outcome;
    },
    onSettled: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.records }),
        queryClient.invalidateQueries({ queryKey: queryKeys.overview }),
      ]);
    },
  });
}
