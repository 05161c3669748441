import type { AccountingRecord } from '@svc/client';
import { Link } from 'wouter';
import { EmptyState } from '../../../components/EmptyState';
import { ReviewStatusBadge } from '../../../components/ReviewStatusBadge';
import { formatDateTime, formatMoney } from '../../../lib/format';
import { recordTitle } from '../../../lib/labels';

/** The records in Prepare or Review unchanged the longest, oldest first, each a link to the record. */
export function WaitingLongestList({ records }: { records: AccountingRecord[] }) {
  if (records.length === 0) {
    return <EmptyState title="Nothing is waiting: no record is in Prepare or Review." />;
  }
  return (
    <ol className="record-list">
      {records.map((record) => (
        <li key={record.id}>
          <Link href={`/records/${encodeURIComponent(record.id)}`}>
            {recordTitle(record)}, {formatMoney(record.amount)}
          </Link>
          <span className="record-list-meta">
            <ReviewStatusBadge status={record.review_status} /> unchanged since {formatDateTime(record.updated_at)}
          </span>
        </li>
      ))}
    </ol>
  );
}
