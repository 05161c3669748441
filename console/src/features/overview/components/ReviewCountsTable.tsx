import type { AccountingOverview } from '@svc/client';
import { Link } from 'wouter';
import { ScrollRegion } from '../../../components/ScrollRegion';
import {
  REVIEW_STATUS_LABELS,
  REVIEW_STATUSES,
  SOURCE_TYPE_LABELS,
  SOURCE_TYPES,
  type ReviewStatus,
  type SourceType,
} from '../../../lib/labels';

/**
 * Records by review state (rows) and source type (columns), with totals; each state and each number opens the review
 * queue filtered to the records it counts.
 */
export function ReviewCountsTable({ counts }: { counts: AccountingOverview['counts'] }) {
  const count = (status: ReviewStatus | null, source: SourceType | null) =>
    counts
      .filter((c) => (status === null || c.review_status === status) && (source === null || c.source_type === source))
      .reduce((sum, c) => sum + c.count, 0);
  const number = (n: number) => n.toLocaleString('en-US');
  /** A count that opens the review queue filtered to the records it counts (the queue's search, the same filters). */
  const cell = (status: ReviewStatus | null, source: SourceType | null) => {
    const n = count(status, source);
    if (n === 0) return number(n);
    const query = new URLSearchParams();
    if (status) query.set('review_status', status);
    if (source) query.set('source_type', source);
    const what = [status && REVIEW_STATUS_LABELS[status], source && SOURCE_TYPE_LABELS[source]].filter(Boolean);
    return (
      <Link
        href={query.size > 0 ? `/queue?${query.toString()}` : '/queue'}
        aria-label={`${number(n)} ${what.length > 0 ? what.join(', ') : 'records in all'}: open in the review queue`}
      >
        {number(n)}
      </Link>
    );
  };

  return (
    <ScrollRegion label="Records by review state and source type">
      <table className="data-table counts-table">
        <caption>Records by review state and source type</caption>
        <thead>
          <tr>
            <th scope="col">Review state</th>
            {SOURCE_TYPES.map((source) => (
              <th scope="col" key={source} className="numeric">
                {SOURCE_TYPE_LABELS[source]}
              </th>
            ))}
            <th scope="col" className="numeric">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {REVIEW_STATUSES.map((status) => (
            <tr key={status}>
              <th scope="row">
                <Link href={`/queue?review_status=${status}`}>{REVIEW_STATUS_LABELS[status]}</Link>
              </th>
              {SOURCE_TYPES.map((source) => (
                <td key={source} className="numeric">
                  {cell(status, source)}
                </td>
              ))}
              <td className="numeric">{cell(status, null)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            {SOURCE_TYPES.map((source) => (
              <td key={source} className="numeric">
                {cell(null, source)}
              </td>
            ))}
            <td className="numeric">{cell(null, null)}</td>
          </tr>
        </tfoot>
      </table>
    </ScrollRegion>
  );
}
