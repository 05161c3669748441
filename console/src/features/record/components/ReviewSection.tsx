import { ErrorMessage } from '../../../components/ErrorMessage';
import { describeMissingLines, recordProblems } from '../../../lib/errors';
import { REVIEW_STATUS_LABELS } from '../../../lib/labels';
import { mayMoveNothing, recordActions, type RecordAction } from '../../../lib/review-moves';
import type { RecordViews } from '../api/record';
import type { RecordChanges } from '../routes/use-record-changes';
import { ReviewActions } from './ReviewActions';

const DONE: Record<RecordAction['kind'], string> = {
  submit: 'Submitted',
  approve: 'Approved',
  submitAndApprove: 'Submitted and approved',
  sendBack: 'Moved',
};

/** The record's review moves, as the server allows them; nothing at all for a user whose role may move none. */
export function ReviewSection({
  views,
  changes,
  dirty,
}: {
  views: RecordViews;
  changes: RecordChanges;
  dirty: boolean;
}) {
  const { record, allowedMoves } = views;
  const { move, save, moveError } = changes;
  if (mayMoveNothing(allowedMoves)) return null;
  // The move's answer names this record's reason (details.errors): the words to show.
  const problem = moveError ? recordProblems(moveError).get(record.id) : undefined;
  const missing = problem?.lines?.length ? describeMissingLines(problem.lines) : '';
  return (
    <section aria-labelledby="record-review" className="card">
      <h2 id="record-review">Review</h2>
      <ReviewActions
        actions={recordActions(allowedMoves)}
        busy={move.isPending || save.isPending}
        blockedBy={dirty ? 'Save or discard the coding changes first.' : null}
        onMove={(action) => {
          changes.resetAll();
          move.mutate(
            { steps: action.steps, version: record.version },
            {
              onSuccess: (moved) =>
                changes.changed(
                  `${DONE[action.kind]}: the record is now ${REVIEW_STATUS_LABELS[moved.review_status]} (version ${moved.version}).`,
                ),
            },
          );
        }}
      />
      {moveError && (
        <ErrorMessage
          title={missing ? `The record cannot be approved yet: ${missing}.` : 'The record was not moved.'}
          error={moveError}
          message={problem?.message}
        />
      )}
    </section>
  );
}
