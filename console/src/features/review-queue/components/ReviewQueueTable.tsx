import type { AccountingRecord } from '@svc/client';
import { useEffect, useRef } from 'react';
import { Link } from 'wouter';
import { ReviewStatusBadge } from '../../../components/ReviewStatusBadge';
import { ScrollRegion } from '../../../components/ScrollRegion';
import type { RecordProblem } from '../../../lib/errors';
import { formatDate, formatDateTime, formatMoney, humanize, plural } from '../../../lib/format';
import { SOURCE_TYPE_LABELS, recordTitle } from '../../../lib/labels';
import { queueState, type QueueContext } from '../../../lib/queue-context';
import type { QueueSort, SortColumn } from '../queue-params';
import { CodingSummaryCell } from './CodingSummaryCell';
import { RecordProblemText } from './RecordProblemText';
import { SortableHeader } from './SortableHeader';
import '../review-queue.css';

interface ReviewQueueTableProps {
  records: AccountingRecord[];
  /** Null: the user may not move records (no selection column). */
  selected: ReadonlySet<string> | null;
  onToggle: (id: string, checked: boolean) => void;
  onToggleAll: (checked: boolean) => void;
  sort: QueueSort;
  onSort: (column: SortColumn) => void;
  problems: ReadonlyMap<string, RecordProblem>;
  context: QueueContext;
}

function SelectAllBox({
  records,
  selected,
  onToggleAll,
}: Pick<ReviewQueueTableProps, 'records' | 'onToggleAll'> & { selected: ReadonlySet<string> }) {
  const ref = useRef<HTMLInputElement>(null);
  const count = records.filter((r) => selected.has(r.id)).length;
  const all = records.length > 0 && count === records.length;
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = count > 0 && !all;
  }, [count, all]);
  return (
    <input
      ref={ref}
      type="checkbox"
      aria-label="Select all records on this page"
      checked={all}
      disabled={records.length === 0}
      onChange={(e) => onToggleAll(e.target.checked)}
    />
  );
}

function LastExport({ result }: { result: AccountingRecord['last_export_result'] }) {
  if (!result) return <span className="muted">Not exported</span>;
  if (result.status === 'SUCCESS') return <span>Exported {formatDate(result.reported_at)}</span>;
  return (
    <span className="export-failed">
      <span className="badge badge-failed">Failed</span> {result.error_message}
    </span>
  );
}

/** How many receipts the record has: "2 receipts", or "No receipt" set apart. */
function ReceiptMarker({ count }: { count: number }) {
  return (
    <span className={count === 0 ? 'cell-sub receipt-marker receipt-marker-none' : 'cell-sub receipt-marker'}>
      {count === 0 ? 'No receipt' : plural(count, 'receipt')}
    </span>
  );
}

/** The records of one page of the queue: each opens the record; each can be selected for a bulk move. */
export function ReviewQueueTable(props: ReviewQueueTableProps) {
  const { records, selected, onToggle, sort, onSort, problems, context } = props;
  return (
    <ScrollRegion label="Records">
      <table className="data-table queue-table">
        <caption className="visually-hidden">Records matching the filters</caption>
        <thead>
          <tr>
            {selected && (
              <th scope="col" className="select-cell">
                <SelectAllBox records={records} selected={selected} onToggleAll={props.onToggleAll} />
              </th>
            )}
            <th scope="col">Record</th>
            <SortableHeader column="posted_at" label="Posted" sort={sort} onSort={onSort} />
            <SortableHeader column="amount" label="Amount" sort={sort} onSort={onSort} numeric />
            <th scope="col">Coding</th>
            <th scope="col">State</th>
            <th scope="col">Source</th>
            <th scope="col">User</th>
            <th scope="col">Last export</th>
            <SortableHeader column="updated_at" label="Updated" sort={sort} onSort={onSort} />
          </tr>
        </thead>
        <tbody>
          {records.map((record) => {
            const problem = problems.get(record.id);
            const problemId = `problem-${record.id}`;
            return (
              <tr key={record.id} className={problem ? 'row-refused' : undefined}>
                {selected && (
                  <td className="select-cell">
                    <input
                      type="checkbox"
                      aria-label={`Select record ${record.id}`}
                      aria-describedby={problem ? problemId : undefined}
                      checked={selected.has(record.id)}
                      onChange={(e) => onToggle(record.id, e.target.checked)}
                    />
                  </td>
                )}
                <td>
                  <Link href={`/records/${encodeURIComponent(record.id)}`} state={queueState(context)}>
                    {recordTitle(record)}
                  </Link>
                  <span className="cell-sub">
                    {humanize(record.type)} · <span className="record-id">{record.id}</span>
                  </span>
                  <ReceiptMarker count={record.receipts?.length ?? 0} />
                  {problem && <RecordProblemText id={problemId} problem={problem} />}
                </td>
                <td className="nowrap">{formatDate(record.posted_at)}</td>
                <td className="numeric nowrap">{formatMoney(record.amount)}</td>
                <td>
                  <CodingSummaryCell record={record} />
                </td>
                <td>
                  <ReviewStatusBadge status={record.review_status} />
                </td>
                <td>{SOURCE_TYPE_LABELS[record.source_type]}</td>
                <td>{record.user?.email ?? '—'}</td>
                <td>
                  <LastExport result={record.last_export_result} />
                </td>
                <td>{formatDateTime(record.updated_at)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
