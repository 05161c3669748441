import type { AccountingRecord } from '@svc/client';
import type { ReviewStatus } from '../../../lib/labels';

interface Action {
  to: ReviewStatus;
  label: string;
  primary: boolean;
}

/** The review step a record can take from its state (the service checks every move again). */
function actionsFor(status: ReviewStatus): Action[] {
  switch (status) {
    case 'PREPARE':
      return [{ to: 'REVIEW', label: 'Submit for review', primary: true }];
    case 'REVIEW':
      return [{ to: 'READY_FOR_EXPORT', label: 'Approve', primary: true }];
    case 'READY_FOR_EXPORT':
    case 'EXPORTED':
      return [{ to: 'REVIEW', label: 'Send back', primary: false }];
  }
}

/** Approve / send back this record, at the version shown. */
export function ReviewActions({
  record,
  busy,
  blockedBy,
  onMove,
}: {
  record: AccountingRecord;
  busy: boolean;
  /** Why the moves are unavailable right now (unsaved coding), or null. */
  blockedBy: string | null;
  onMove: (to: ReviewStatus) => void;
}) {
  return (
    <div className="button-row" role="group" aria-label="Review">
      {actionsFor(record.review_status).map((action) => (
        <button
          key={action.to}
          type="button"
          className={action.primary ? 'button-primary' : undefined}
          disabled={busy || blockedBy !== null}
          onClick={() => onMove(action.to)}
        >
          {action.label}
        </button>
      ))}
      {blockedBy && <span className="muted">{blockedBy}</span>}
    </div>
  );
}
