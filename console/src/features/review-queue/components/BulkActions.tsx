import { plural } from '../../../lib/format';

interface BulkActionsProps {
  count: number;
  busy: boolean;
  onApprove: () => void;
  onSendBack: () => void;
}

/** Moves the selected records together: approve (to Ready for export) or send back (one step back each). */
export function BulkActions({ count, busy, onApprove, onSendBack }: BulkActionsProps) {
  return (
    <div className="bulk-bar" role="group" aria-label="Selected records">
      <p className="bulk-count" aria-live="polite">
        {count === 0 ? 'No record selected' : `${plural(count, 'record')} selected`}
      </p>
      <button type="button" className="button-primary" disabled={count === 0 || busy} onClick={onApprove}>
        Approve
      </button>
      <button type="button" disabled={count === 0 || busy} onClick={onSendBack}>
        Send back
      </button>
    </div>
  );
}
