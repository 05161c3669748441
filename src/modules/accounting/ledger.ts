import { newId } from '../../lib/ids.js';
import { allocate, fromMinor, type Money } from './money.js';

export const SOURCE_TYPES = ['CARD', 'REIMBURSEMENT', 'BILL'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export type Side = 'DEBIT' | 'CREDIT';

/**
 * What a record's balancing line stands for, answered on every record as `balancing_account_type` (an ERP maps each
 * to one of its own accounts; the economic lines carry their account as a coding). An enum that may grow: a new
 * member is an addition, and a connector should refuse, not guess, one it does not know.
 */
export const BALANCING_ACCOUNT_TYPES = [
  'CARD_LIABILITY',
  'BANK',
  'REIMBURSEMENTS_PAYABLE',
  'REIMBURSEMENT_CLEARING',
  'ACCOUNTS_RECEIVABLE',
  'ACCOUNTS_PAYABLE',
  'BILL_PAY_CLEARING',
] as const;
export type BalancingAccountType = (typeof BALANCING_ACCOUNT_TYPES)[number];

interface LedgerRule {
  source: SourceType;
  /** The side that carries the economic impact: these lines are coded and kept by single_entry=true. */
  economic: Side;
  /** What the economic side books, in words (docs/accounting.md and docs/integration.md repeat this table). */
  economicAccount: string;
  /** What the balancing line books. */
  balancing: BalancingAccountType;
}

/**
 * Double entry per record type: an expense debits the expense, a refund or repayment credits it, a payment
 * moves cash (or the card liability that stands in for it). The balancing side is one uncoded line.
 */
export const LEDGER = {
  CARD_EXPENSE_POST: {
    source: 'CARD',
    economic: 'DEBIT',
    economicAccount: 'expense',
    balancing: 'CARD_LIABILITY',
  },
  CARD_EXPENSE_REFUND: {
    source: 'CARD',
    economic: 'CREDIT',
    economicAccount: 'expense',
    balancing: 'CARD_LIABILITY',
  },
  CARD_EXPENSE_REPAYMENT: {
    source: 'CARD',
    economic: 'CREDIT',
    economicAccount: 'expense',
    balancing: 'BANK',
  },
  CARD_PAYMENT: {
    source: 'CARD',
    economic: 'CREDIT',
    economicAccount: 'bank (cash)',
    balancing: 'CARD_LIABILITY',
  },
  CARD_PAYMENT_REFUND: {
    source: 'CARD',
    economic: 'DEBIT',
    economicAccount: 'bank (cash)',
    balancing: 'CARD_LIABILITY',
  },
  REWARD_REDEMPTION: {
    source: 'CARD',
    economic: 'CREDIT',
    economicAccount: 'rewards income',
    balancing: 'CARD_LIABILITY',
  },
  REIMBURSEMENT_EXPENSE_APPROVAL: {
    source: 'REIMBURSEMENT',
    economic: 'DEBIT',
    economicAccount: 'expense',
    balancing: 'REIMBURSEMENTS_PAYABLE',
  },
  REIMBURSEMENT_EXPENSE_POST: {
    source: 'REIMBURSEMENT',
    economic: 'DEBIT',
    economicAccount: 'expense',
    balancing: 'BANK',
  },
  REIMBURSEMENT_EXPENSE_REPAYMENT: {
    source: 'REIMBURSEMENT',
    economic: 'CREDIT',
    economicAccount: 'expense',
    balancing: 'BANK',
  },
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT: {
    source: 'REIMBURSEMENT',
    economic: 'CREDIT',
    economicAccount: 'bank (cash)',
    balancing: 'REIMBURSEMENTS_PAYABLE',
  },
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL: {
    source: 'REIMBURSEMENT',
    economic: 'DEBIT',
    economicAccount: 'bank (cash)',
    balancing: 'REIMBURSEMENTS_PAYABLE',
  },
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN: {
    source: 'REIMBURSEMENT',
    economic: 'CREDIT',
    economicAccount: 'bank (cash)',
    balancing: 'REIMBURSEMENT_CLEARING',
  },
  REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND: {
    source: 'REIMBURSEMENT',
    economic: 'DEBIT',
    economicAccount: 'bank (cash)',
    balancing: 'REIMBURSEMENT_CLEARING',
  },
  INVOICE: { source: 'BILL', economic: 'CREDIT', economicAccount: 'revenue', balancing: 'ACCOUNTS_RECEIVABLE' },
  INVOICE_PAYMENT: {
    source: 'BILL',
    economic: 'DEBIT',
    economicAccount: 'bank (cash)',
    balancing: 'ACCOUNTS_RECEIVABLE',
  },
  BILL_EXPENSE: { source: 'BILL', economic: 'DEBIT', economicAccount: 'expense', balancing: 'ACCOUNTS_PAYABLE' },
  BILL_EXPENSE_PAYMENT: {
    source: 'BILL',
    economic: 'CREDIT',
    economicAccount: 'bank (cash)',
    balancing: 'ACCOUNTS_PAYABLE',
  },
  BILL_EXPENSE_CARD_PAYMENT: {
    source: 'BILL',
    economic: 'CREDIT',
    economicAccount: 'card liability',
    balancing: 'ACCOUNTS_PAYABLE',
  },
  BILL_MONEY_MOVEMENT_PAYIN: {
    source: 'BILL',
    economic: 'CREDIT',
    economicAccount: 'bank (cash)',
    balancing: 'BILL_PAY_CLEARING',
  },
} as const satisfies Record<string, LedgerRule>;

export type RecordType = keyof typeof LEDGER;

/** In the order of the spec. */
export const RECORD_TYPES: readonly RecordType[] = [
  'CARD_EXPENSE_POST',
  'CARD_EXPENSE_REPAYMENT',
  'REIMBURSEMENT_EXPENSE_REPAYMENT',
  'REIMBURSEMENT_EXPENSE_APPROVAL',
  'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT',
  'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN',
  'REIMBURSEMENT_EXPENSE_POST',
  'CARD_PAYMENT',
  'REWARD_REDEMPTION',
  'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND',
  'CARD_EXPENSE_REFUND',
  'CARD_PAYMENT_REFUND',
  'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL',
  'INVOICE',
  'INVOICE_PAYMENT',
  'BILL_EXPENSE',
  'BILL_EXPENSE_PAYMENT',
  'BILL_EXPENSE_CARD_PAYMENT',
  'BILL_MONEY_MOVEMENT_PAYIN',
];

export const sourceTypeOf = (type: RecordType): SourceType => LEDGER[type].source;
export const economicSideOf = (type: RecordType): Side => LEDGER[type].economic;
const opposite = (side: Side): Side => (side === 'DEBIT' ? 'CREDIT' : 'DEBIT');
/** The side of the record's one balancing line. */
export const balancingSideOf = (type: RecordType): Side => opposite(LEDGER[type].economic);
export const balancingAccountOf = (type: RecordType): BalancingAccountType => LEDGER[type].balancing;

/**
 * How a coding identifies its value: IDENTIFIER, a value of the field's list, named by its ids (svc and remote).
 * The only kind svc has; a field whose values are typed in rather than picked would need another.
 */
export const CODING_TYPES = ['IDENTIFIER'] as const;
export type CodingType = (typeof CODING_TYPES)[number];

/** A coding of a line: one custom field value, resolved when the record is written. */
export interface AccountingFieldValue {
  svc_field_id: string;
  remote_field_id: string | null;
  svc_field_value_id: string;
  remote_field_value_id: string | null;
  field_name: string;
  field_value_name: string;
  type: CodingType;
}

/** A line item as the ledger computes it: amounts in integer minor units. */
export interface LedgerLine {
  id: string;
  type: Side;
  amount: number;
  original_amount: number | null;
  /** In the record's billing currency; null on the balancing line, which has none (as in the reference). */
  billing_amount: number | null;
  memo: string | null;
  accounting_field_values: AccountingFieldValue[];
}

export interface EconomicLine {
  amount: number;
  memo: string | null;
  fieldValues: AccountingFieldValue[];
}

/**
 * The record's line items: the economic lines as given (their amounts sum to `amount`), then one balancing
 * line on the other side for the whole amount, so debits and credits each sum to the record's amount.
 * Original and billing amounts are split over the economic lines in proportion to their amounts; the balancing
 * line carries the whole original amount and no billing amount.
 */
export function buildLineItems(
  type: RecordType,
  amount: number,
  originalAmount: number | null,
  billingAmount: number,
  lines: readonly EconomicLine[],
): LedgerLine[] {
  const side = economicSideOf(type);
  const weights = lines.map((l) => l.amount);
  const originals = originalAmount === null ? null : allocate(originalAmount, weights);
  const billings = allocate(billingAmount, weights);
  const economic = lines.map((line, i): LedgerLine => ({
    id: newId('accrli'),
    type: side,
    amount: line.amount,
    original_amount: originals ? originals[i]! : null,
    billing_amount: billings[i]!,
    memo: line.memo,
    accounting_field_values: line.fieldValues,
  }));
  const balancing: LedgerLine = {
    id: newId('accrli'),
    type: opposite(side),
    amount,
    original_amount: originalAmount,
    billing_amount: null,
    memo: null,
    accounting_field_values: [],
  };
  return [...economic, balancing];
}

/**
 * A line item as stored in accounting_record_details.line_items_json and answered: amounts in major units with their
 * currency, members in the answer's order, so that a page of records splices the stored text as it is.
 */
export interface LineItem {
  id: string;
  type: Side;
  amount: Money;
  original_amount: Money | null;
  /** Economic lines only: the balancing line has no billing amount (as in the reference record). */
  billing_amount?: Money;
  memo: string | null;
  accounting_field_values: AccountingFieldValue[];
  /** Always null: svc takes no amortization schedules (docs/accounting.md). */
  amortization: null;
}

/** The stored (and answered) form of computed lines. */
export function lineItemsOf(
  lines: readonly LedgerLine[],
  currency: string,
  originalCurrency: string | null,
  billingCurrency: string,
): LineItem[] {
  return lines.map((line) => ({
    id: line.id,
    type: line.type,
    amount: fromMinor(line.amount, currency),
    original_amount:
      line.original_amount === null || originalCurrency === null
        ? null
        : fromMinor(line.original_amount, originalCurrency),
    memo: line.memo,
    accounting_field_values: line.accounting_field_values,
    amortization: null,
    // Last, where the response serializer writes an optional member (after the required ones): a stored line's text
    // is answered as it is in pages (test/prewritten.test.ts holds the two alike).
    ...(line.billing_amount === null ? {} : { billing_amount: fromMinor(line.billing_amount, billingCurrency) }),
  }));
}

/** single_entry=true: only the lines that carry the economic impact. */
export function economicLines<L extends { type: Side }>(type: RecordType, items: readonly L[]): L[] {
  const side = economicSideOf(type);
  return items.filter((item) => item.type === side);
}
