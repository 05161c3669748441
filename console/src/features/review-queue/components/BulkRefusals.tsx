import type { AccountingRecord } from '@svc/client';
import { useLayoutEffect, useRef } from 'react';
import { plural } from '../../../lib/format';
import { recordTitle } from '../../../lib/labels';
import { movingCount, type BulkPlan } from '../bulk-plan';

const VERBS = { approve: 'approved', sendBack: 'sent back' } as const;

interface BulkRefusalsProps {
  plan: BulkPlan;
  records: readonly AccountingRecord[];
  busy: boolean;
  onGoOn: () => void;
  onSubmitAndApprove: () => void;
  onCancel: () => void;
}

/**
 * Before a bulk action moves anything: the selected records it cannot move, each with the server's reason, and the
 * choices: go on without them, submit-and-approve those the server says could be approved once submitted, or stop.
 */
export function BulkRefusals({ plan, records, busy, onGoOn, onSubmitAndApprove, onCancel }: BulkRefusalsProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), [plan]);
  const titles = new Map(records.map((r) => [r.id, recordTitle(r)]));
  const moving = movingCount(plan);
  const verb = VERBS[plan.action];
  const via = plan.via?.records.length ?? 0;
  return (
    <section className="notice notice-warning" aria-labelledby="bulk-refusals-title">
      <h2 id="bulk-refusals-title" className="notice-title" tabIndex={-1} ref={heading}>
        {`Nothing has moved yet: ${plural(plan.refused.length, 'selected record')} of ${plan.asked} cannot be ${verb}.`}
      </h2>
      <ul aria-label={`Records that cannot be ${verb}`}>
        {plan.refused.map((r) => (
          <li key={r.id}>
            <strong>{titles.get(r.id) ?? r.id}</strong> <span className="record-id">{r.id}</span>: {r.reason}
          </li>
        ))}
      </ul>
      <div className="button-row">
        {moving > 0 && (
          <button type="button" className="button-primary" disabled={busy} onClick={onGoOn}>
            Go on without these
          </button>
        )}
        {via > 0 && (
          <button type="button" disabled={busy} onClick={onSubmitAndApprove}>
            Submit and approve
          </button>
        )}
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <p className="hint">
        {moving > 0 && `Going on moves the other ${plural(moving, 'record')}. `}
        {via > 0 &&
          `Submit and approve first submits for review the ${plural(via, 'record')} that could then be approved.`}
      </p>
    </section>
  );
}
