import type { AccountingRecord } from '@svc/client';
import { humanize } from './format';

export type ReviewStatus = AccountingRecord['review_status'];
export type SourceType = AccountingRecord['source_type'];
export type RecordType = AccountingRecord['type'];

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

/**
 * Every record type, in the spec's order: the service's list (ledger.ts) as the console's client types it, the
 * compiler holding it complete (a type the API adds and this list lacks fails the build).
 */
const RECORD_TYPE_ORDER = {
  CARD_EXPENSE_POST: true,
  CARD_EXPENSE_REPAYMENT: true,
  REIMBURSEMENT_EXPENSE_REPAYMENT: true,
  REIMBURSEMENT_EXPENSE_APPROVAL: true,
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT: true,
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN: true,
  REIMBURSEMENT_EXPENSE_POST: true,
  CARD_PAYMENT: true,
  REWARD_REDEMPTION: true,
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND: true,
  CARD_EXPENSE_REFUND: true,
  CARD_PAYMENT_REFUND: true,
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL: true,
  INVOICE: true,
  INVOICE_PAYMENT: true,
  BILL_EXPENSE: true,
  BILL_EXPENSE_PAYMENT: true,
  BILL_EXPENSE_CARD_PAYMENT: true,
  BILL_MONEY_MOVEMENT_PAYIN: true,
} as const satisfies Record<RecordType, true>;
export const RECORD_TYPES: readonly RecordType[] = Object.keys(RECORD_TYPE_ORDER).filter((type): type is RecordType =>
  Object.hasOwn(RECORD_TYPE_ORDER, type),
);

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
