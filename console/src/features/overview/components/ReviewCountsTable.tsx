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

/** Records by review state (rows) and source type (columns), with totals; each state links to its queue. */
export function ReviewCountsTable({ counts }: { counts: AccountingOverview['counts'] }) {
  const count = (status: ReviewStatus | null, source: SourceType | null) =>
    counts
      .filter((c) => (status === null || c.review_status === status) && (source === null || c.source_type === source))
      .reduce((sum, c) => sum + c.count, 0);
  const number = (n: number) => n.toLocaleString('en-US');

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
                  {number(count(status, source))}
                </td>
              ))}
              <td className="numeric">{number(count(status, null))}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            {SOURCE_TYPES.map((source) => (
              <td key={source} className="numeric">
                {number(count(null, source))}
              </td>
            ))}
            <td className="numeric">{number(count(null, null))}</td>
          </tr>
        </tfoot>
      </table>
    </ScrollRegion>
  );
}
