import { useId } from 'react';
import type { RecordAction } from '../../../lib/review-moves';

/**
 * The review moves of this record as the server allows them now: a move allowed is a button; one not allowed is a
 * disabled button with the server's reason beside it.
 */
export function ReviewActions({
  actions,
  busy,
  blockedBy,
  onMove,
}: {
  actions: RecordAction[];
  busy: boolean;
  /** Why the moves are unavailable right now (unsaved coding), or null. */
  blockedBy: string | null;
  onMove: (action: RecordAction) => void;
}) {
  const idBase = useId();
  const primary = actions.find((a) => a.refusal === null && a.kind !== 'sendBack');
  const refused = actions.filter((a) => a.refusal !== null);
  return (
    <>
      <div className="button-row" role="group" aria-label="Review moves">
        {actions.map((action) => (
          <button
            key={action.kind}
            type="button"
            className={action === primary ? 'button-primary' : undefined}
            disabled={busy || blockedBy !== null || action.refusal !== null}
            aria-describedby={action.refusal !== null ? `${idBase}-${action.kind}` : undefined}
            onClick={() => onMove(action)}
          >
            {action.label}
          </button>
        ))}
        {blockedBy && <span className="muted">{blockedBy}</span>}
      </div>
      {refused.length > 0 && (
        <ul className="move-reasons" aria-label="Moves not possible now">
          {refused.map((action) => (
            <li key={action.kind} id={`${idBase}-${action.kind}`}>
              <strong>{action.label}</strong>: {action.refusal}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
