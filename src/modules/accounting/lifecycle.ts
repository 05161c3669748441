/** The review states, in lifecycle order. */
export const REVIEW_STATUSES = ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT', 'EXPORTED'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/**
 * Review lifecycle: PREPARE → REVIEW → READY_FOR_EXPORT → EXPORTED, one step at a time; backward single
 * steps READY_FOR_EXPORT → REVIEW, REVIEW → PREPARE and EXPORTED → REVIEW (re-opened for correction).
 * READY_FOR_EXPORT → EXPORTED happens only through a successful export result; a failed one moves the
 * record back to REVIEW. Anything else, staying in the current state included, is INVALID_TRANSITION.
 */
const REVIEW_MOVES: Readonly<Record<ReviewStatus, readonly ReviewStatus[]>> = {
  PREPARE: ['REVIEW'],
  REVIEW: ['READY_FOR_EXPORT', 'PREPARE'],
  READY_FOR_EXPORT: ['REVIEW'],
  EXPORTED: ['REVIEW'],
};

/** The state an export result is accepted in, and where each outcome leads. */
export const EXPORTABLE: ReviewStatus = 'READY_FOR_EXPORT';
export const AFTER_EXPORT = { SUCCESS: 'EXPORTED', FAILURE: 'REVIEW' } as const satisfies Record<string, ReviewStatus>;

/** What can happen to a record: each change is kept as an event of one of these types (history.ts). */
export const RECORD_EVENT_TYPES = [
  'INGESTED',
  'IMPORTED',
  'CODED',
  'CODED_BY_RULES',
  'SPLIT',
  'MERGED',
  'MOVED',
  'EXPORT_SUCCEEDED',
  'EXPORT_FAILED',
  'RECEIPT_ATTACHED',
  'RECEIPT_REMOVED',
] as const;
export type RecordEventType = (typeof RECORD_EVENT_TYPES)[number];

/** Review states in which a record's lines may be coded, split or merged. */
export const EDITABLE: readonly ReviewStatus[] = ['PREPARE', 'REVIEW'];

/** True when a review move (not an export result) may take a record from → to. */
export function canMove(from: ReviewStatus, to: ReviewStatus): boolean {
  return REVIEW_MOVES[from].includes(to);
}

/** Review states a record may be created in: any but EXPORTED, which only an export result reaches. */
export const INITIAL_STATUSES = ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT'] as const satisfies readonly ReviewStatus[];
