import type { AccountingRecord } from '@svc/client';
import { humanize } from './format';

export type ReviewStatus = AccountingRecord['review_status'];
export type SourceType = AccountingRecord['source_type'];

/** The review states in lifecycle order, as the console names them. */
export const REVIEW_STATUS_LABELS = {
  PREPARE: 'Prepare',
  REVIEW: 'Review',
  READY_FOR_EXPORT: 'Ready for export',
  EXPORTED: 'Exported',
} as const satisfies Record<ReviewStatus, string>;

export const SOURCE_TYPE_LABELS = {
  CARD: 'Card',
  REIMBURSEMENT: 'Reimbursement',
  BILL: 'Bill',
} as const satisfies Record<SourceType, string>;

export const REVIEW_STATUSES: readonly ReviewStatus[] = ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT', 'EXPORTED'];
export const SOURCE_TYPES: readonly SourceType[] = ['CARD', 'REIMBURSEMENT', 'BILL'];

export function isReviewStatus(value: string | null): value is ReviewStatus {
  return REVIEW_STATUSES.some((status) => status === value);
}

export function isSourceType(value: string | null): value is SourceType {
  return SOURCE_TYPES.some((source) => source === value);
}

/** What a record is called in lists and headings: its vendor, else its user, else its type. */
export function recordTitle(record: Pick<AccountingRecord, 'vendor' | 'user' | 'type'>): string {
  if (record.vendor?.name) return record.vendor.name;
  if (record.user) return `${record.user.first_name} ${record.user.last_name}`.trim() || record.user.email;
  return humanize(record.type);
}
