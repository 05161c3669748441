import type { RecordType } from './ledger.js';

/**
 * A record's `status`: the state of the source activity it books (the expense, bill or money movement in the card,
 * reimbursement or bill system), as that system reported it at ingestion. Not the review state (`review_status`),
 * which is the finance team's. Documents (expenses, bills, invoices) go DRAFT → SUBMITTED → APPROVED; money
 * movements are PENDING until they settle, then COMPLETED.
 */
export const SOURCE_STATUSES = ['DRAFT', 'SUBMITTED', 'APPROVED', 'PENDING', 'COMPLETED'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

const DOCUMENT: readonly SourceStatus[] = ['SUBMITTED', 'DRAFT', 'APPROVED'];
const APPROVED: readonly SourceStatus[] = ['APPROVED'];
const MOVEMENT: readonly SourceStatus[] = ['COMPLETED', 'PENDING'];

/**
 * The statuses each type's activity may be in when it is booked, its default first (docs/accounting.md repeats
 * this table). A reimbursement's approval and its fulfilment book an expense that is approved by then.
 */
export const SOURCE_STATUSES_BY_TYPE: Readonly<Record<RecordType, readonly SourceStatus[]>> = {
  CARD_EXPENSE_POST: DOCUMENT,
  CARD_EXPENSE_REFUND: DOCUMENT,
  CARD_EXPENSE_REPAYMENT: MOVEMENT,
  CARD_PAYMENT: MOVEMENT,
  CARD_PAYMENT_REFUND: MOVEMENT,
  REWARD_REDEMPTION: MOVEMENT,
  REIMBURSEMENT_EXPENSE_APPROVAL: APPROVED,
  REIMBURSEMENT_EXPENSE_POST: APPROVED,
  REIMBURSEMENT_EXPENSE_REPAYMENT: MOVEMENT,
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT: MOVEMENT,
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL: MOVEMENT,
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN: MOVEMENT,
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND: MOVEMENT,
  INVOICE: DOCUMENT,
  INVOICE_PAYMENT: MOVEMENT,
  BILL_EXPENSE: DOCUMENT,
  BILL_EXPENSE_PAYMENT: MOVEMENT,
  BILL_EXPENSE_CARD_PAYMENT: MOVEMENT,
  BILL_MONEY_MOVEMENT_PAYIN: MOVEMENT,
};

/** The status a record of this type gets when ingestion gives none. */
export const defaultSourceStatus = (type: RecordType): SourceStatus => SOURCE_STATUSES_BY_TYPE[type][0]!;
