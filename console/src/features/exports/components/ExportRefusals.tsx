import { Link } from 'wouter';
import { isReviewStatus, REVIEW_STATUS_LABELS } from '../../../lib/labels';
import type { RefusedRecord } from '../api/exports';

/** A refusal's problem in plain words: "is REVIEW, not READY_FOR_EXPORT" becomes "it is at Review, not …". */
function problemWords(record: RefusedRecord, problem: string): string {
  const status = record.review_status;
  if (problem === `is ${status}, not READY_FOR_EXPORT` && isReviewStatus(status)) {
    return `it is at ${REVIEW_STATUS_LABELS[status]}, not Ready for export`;
  }
  return problem;
}

interface ExportRefusalsProps {
  records: readonly RefusedRecord[];
  /** Asks for the file again without these records; absent when nothing else would be left. */
  onLeaveOut?: () => void;
  pending: boolean;
}

/** Why the service refused the file, record by record, each linked to its page; and a way on without them. */
export function ExportRefusals({ records, onLeaveOut, pending }: ExportRefusalsProps) {
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">
        Nothing was exported: {records.length === 1 ? '1 record cannot' : `${records.length} records cannot`} be
        exported.
      </p>
      <ul className="export-refusals" aria-label="Records that cannot be exported">
        {records.map((record) => (
          <li key={record.accounting_record_id}>
            <Link href={`/records/${encodeURIComponent(record.accounting_record_id)}`}>
              {record.accounting_record_id}
            </Link>
            : {record.problems.map((p) => problemWords(record, p)).join('; ')}.
          </li>
        ))}
      </ul>
      <p>Open a record to code or approve it, then download again.</p>
      {onLeaveOut && (
        <div className="button-row">
          <button type="button" onClick={onLeaveOut} disabled={pending}>
            Download without {records.length === 1 ? 'this record' : 'these records'}
          </button>
        </div>
      )}
    </div>
  );
}
