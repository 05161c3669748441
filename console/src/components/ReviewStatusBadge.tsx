import { REVIEW_STATUS_LABELS, type ReviewStatus } from '../lib/labels';

/** A record's review state as a labelled badge. */
export function ReviewStatusBadge({ status }: { status: ReviewStatus }) {
  return (
    <span className={`badge badge-${status.toLowerCase().replaceAll('_', '-')}`}>{REVIEW_STATUS_LABELS[status]}</span>
  );
}
