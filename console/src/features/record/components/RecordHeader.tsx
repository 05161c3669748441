import type { AccountingRecord } from '@svc/client';
import type { ReactNode } from 'react';
import { ReviewStatusBadge } from '../../../components/ReviewStatusBadge';
import { formatDate, formatDateTime, formatMoney, humanize, plural } from '../../../lib/format';
import { SOURCE_TYPE_LABELS } from '../../../lib/labels';

function userName(user: NonNullable<AccountingRecord['user']>): string {
  const name = `${user.first_name} ${user.last_name}`.trim();
  return name ? `${name} (${user.email})` : user.email;
}

/** What the record is: amounts, kind, dates, who and with whom, its state and version. */
export function RecordHeader({ record }: { record: AccountingRecord }) {
  const receipts = record.receipts?.length ?? 0;
  const items: [string, ReactNode][] = [
    ['Amount', formatMoney(record.amount)],
    ['Original amount', formatMoney(record.original_amount)],
    ['Type', humanize(record.type)],
    ['Source', SOURCE_TYPE_LABELS[record.source_type]],
    ['Posted', formatDate(record.posted_at)],
    ['ERP posting date', formatDate(record.erp_posting_date)],
    ['User', record.user ? userName(record.user) : '—'],
    ['Vendor', record.vendor?.name ?? '—'],
    ['Receipts', plural(receipts, 'receipt')],
    ['State', <ReviewStatusBadge key="state" status={record.review_status} />],
    ['Version', String(record.version)],
    ['Updated', formatDateTime(record.updated_at)],
    ['Record id', <code key="id">{record.id}</code>],
  ];
  if (record.invoice_number) items.splice(6, 0, ['Invoice number', record.invoice_number]);
  if (record.due_at) items.splice(6, 0, ['Due', formatDate(record.due_at)]);
  return (
    <dl className="record-header">
      {items.map(([term, value]) => (
        <div key={term} className="record-header-item">
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
      {record.memo && (
        <div className="record-header-item record-header-wide">
          <dt>Memo</dt>
          <dd>{record.memo}</dd>
        </div>
      )}
    </dl>
  );
}
