import type { ShownRecordRow } from '../accounting/export-selection.service.js';
import {
  BALANCING_ACCOUNT_TYPES,
  balancingAccountOf,
  LEDGER,
  type AccountingFieldValue,
  type BalancingAccountType,
  type LineItem,
  type RecordType,
  type Side,
} from '../accounting/export-selection.service.js';
import { CURRENCY_EXPONENTS, toMinor } from '../accounting/export-selection.service.js';

/**
 * The one mapping from svc's records to the entries of a book (docs/exports.md): every writer (hledger, Beancount,
 * CSV) renders these entries and nothing else. Amounts stay integers in minor units until a writer prints them.
 */

export const ACCOUNT_ROOTS = ['Assets', 'Liabilities', 'Equity', 'Income', 'Expenses'] as const;
export type AccountRoot = (typeof ACCOUNT_ROOTS)[number];

/** A book's account: its root (the five of double entry), an optional code (the chart's number) and a name. */
export interface BookAccount {
  root: AccountRoot;
  code: string | null;
  name: string;
}

/** A field's value on a line, other than the GL account: a dimension (hledger tag, Beancount metadata, CSV column). */
export interface Dimension {
  /** The field's name as a key: lower case letters, digits and dashes, starting with a letter ("cost-center"). */
  key: string;
  /** The field's svc id: what the stored mapping's dimension_fields and tracking_fields name. */
  fieldId: string;
  field: string;
  value: string;
}

export interface Posting {
  account: BookAccount;
  side: Side;
  /** Positive, in minor units of `currency`. */
  minor: number;
  currency: string;
  /** Decimal places of the currency (ISO 4217). */
  exponent: number;
  memo: string | null;
  dimensions: Dimension[];
  /** The balancing line's balancing_account_type; null on an economic line (its account is a GL account). */
  balancing: BalancingAccountType | null;
}

export interface Entry {
  recordId: string;
  type: RecordType;
  /** YYYY-MM-DD, the record's ERP posting date in UTC. */
  date: string;
  payee: string | null;
  narration: string;
  invoiceNumber: string | null;
  postings: Posting[];
}

/** The ERPs' dimension columns a field may fill (QuickBooks Class and Location; NetSuite all three). */
export const DIMENSION_SLOTS = ['department', 'class', 'location'] as const;
export type DimensionSlot = (typeof DIMENSION_SLOTS)[number];

/**
 * Which field fills which ERP dimension column, by svc field id. A slot without a field takes the dimension whose
 * key is the slot's name (a field named "Class"); Xero's two tracking categories, without tracking fields, take a
 * line's first two dimensions (and a line with more is refused).
 */
export interface DimensionSlots {
  department: string | null;
  class: string | null;
  location: string | null;
  tracking: readonly string[];
}
export const NO_SLOTS: DimensionSlots = { department: null, class: null, location: null, tracking: [] };

export interface MappingOptions {
  /** The svc field id of the GL account field; default: the field named "GL Account" or remotely GL_ACCOUNT. */
  accountFieldId: string | null;
  /** The account each balancing line books, by the record's balancing_account_type. */
  balancingAccounts: Readonly<Record<BalancingAccountType, BookAccount>>;
  slots: DimensionSlots;
  /** The company's home (base) currency: all Xero takes, and all QuickBooks Online takes without Multicurrency. */
  homeCurrency: string;
  /** Whether the QuickBooks Online company has Multicurrency on (then its Currency column books other currencies). */
  quickbooksMulticurrency: boolean;
}

/** The home currency when none is configured. */
export const DEFAULT_HOME_CURRENCY = 'USD';

/** The balancing accounts when none is configured: one per balancing_account_type. */
export const DEFAULT_BALANCING_ACCOUNTS: Readonly<Record<BalancingAccountType, BookAccount>> = {
  CARD_LIABILITY: { root: 'Liabilities', code: null, name: 'Card' },
  BANK: { root: 'Assets', code: null, name: 'Bank' },
  REIMBURSEMENTS_PAYABLE: { root: 'Liabilities', code: null, name: 'Reimbursements Payable' },
  REIMBURSEMENT_CLEARING: { root: 'Assets', code: null, name: 'Reimbursement Clearing' },
  ACCOUNTS_RECEIVABLE: { root: 'Assets', code: null, name: 'Accounts Receivable' },
  ACCOUNTS_PAYABLE: { root: 'Liabilities', code: null, name: 'Accounts Payable' },
  BILL_PAY_CLEARING: { root: 'Assets', code: null, name: 'Bill Pay Clearing' },
};
export const DEFAULT_MAPPING: MappingOptions = {
  accountFieldId: null,
  balancingAccounts: DEFAULT_BALANCING_ACCOUNTS,
  slots: NO_SLOTS,
  homeCurrency: DEFAULT_HOME_CURRENCY,
  quickbooksMulticurrency: false,
};

/** Where a GL account of an economic line sits, by what the record's type books (ledger.ts, economicAccount). */
const ROOT_OF_ECONOMIC: Record<string, AccountRoot> = {
  expense: 'Expenses',
  'bank (cash)': 'Assets',
  'rewards income': 'Income',
  revenue: 'Income',
  'card liability': 'Liabilities',
};

/**
 * "Liabilities:Amex-Corporate" → the account; null when it is not such a path: a root, then words of letters, digits
 * and dashes, one space between them, the first capitalised or a number (the defaults' "Reimbursements Payable").
 */
export const ACCOUNT_PATH = '^(Assets|Liabilities|Equity|Income|Expenses):[A-Z0-9][A-Za-z0-9-]*( [A-Za-z0-9-]+)*$';
export function accountFromPath(path: string): BookAccount | null {
  const [root, name] = path.split(':');
  const known = ACCOUNT_ROOTS.find((r) => r === root);
  if (!new RegExp(ACCOUNT_PATH).test(path) || known === undefined || name === undefined) return null;
  // "800-Card" or "800 Card": code 800, name Card, as a GL value "800 Card" reads.
  const numbered = /^(\d+)[- ](.+)$/.exec(name);
  return numbered ? { root: known, code: numbered[1]!, name: numbered[2]! } : { root: known, code: null, name };
}
/** The path `accountFromPath` reads back as the same account: "Liabilities:800-Card". */
export const pathOf = (account: BookAccount): string =>
  `${account.root}:${account.code === null ? '' : `${account.code}-`}${account.name}`;
export const isBalancingAccountType = (key: string): key is BalancingAccountType =>
  (BALANCING_ACCOUNT_TYPES as readonly string[]).includes(key);

/** What is wrong with one record, in words a person fixes it by. */
export interface RecordProblem {
  accounting_record_id: string;
  /** A caller reports a FAILURE only for a record READY_FOR_EXPORT. */
  review_status: string;
  problems: string[];
}

const isAccountField = (value: AccountingFieldValue, options: MappingOptions): boolean =>
  options.accountFieldId !== null
    ? value.svc_field_id === options.accountFieldId
    : value.remote_field_id === 'GL_ACCOUNT' || value.field_name.trim().toLowerCase() === 'gl account';

/**
 * The account-code rule (docs/exports.md): a value named by its chart number, "7500 Other G&A", is the account with
 * code 7500 and name "Other G&A"; a value without a leading number takes its remote id as its code, if it has one.
 * The number in the name wins over the remote id: a remote id is often an ERP's internal key (or a seed's tag),
 * while the chart number is what the books' imports match (Xero's AccountCode, NetSuite's account numbers).
 */
export function glAccountOf(value: AccountingFieldValue, root: AccountRoot): BookAccount {
  const text = value.field_value_name.replace(/\s+/g, ' ').trim();
  const numbered = /^(\d[\d.-]*) (.+)$/.exec(text);
  if (numbered) return { root, code: numbered[1]!, name: numbered[2]! };
  return { root, code: value.remote_field_value_id?.trim() || null, name: text };
}

/** "Cost Center" → "cost-center"; a name with no letter or digit → "field". */
export function dimensionKey(fieldName: string): string {
  const slug = fieldName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '');
  return slug.length >= 2 ? slug : `field-${slug}`.replace(/-$/, '');
}

/**
 * The accounts and dimensions of one export, each built once: a chart has few values and a file many lines, and
 * one object per account lets the writers name it once (exports.hledger.ts, exports.beancount.ts).
 */
interface Seen {
  account(value: AccountingFieldValue, root: AccountRoot): BookAccount;
  dimension(value: AccountingFieldValue): Dimension;
}
function newSeen(): Seen {
  const accounts = new Map<string, BookAccount>();
  const dimensions = new Map<string, Dimension>();
  return {
    account(value, root) {
      const key = `${root}\u0000${value.remote_field_value_id ?? ''}\u0000${value.field_value_name}`;
      let account = accounts.get(key);
      if (account === undefined) accounts.set(key, (account = glAccountOf(value, root)));
      return account;
    },
    dimension(value) {
      const key = `${value.svc_field_id}\u0000${value.field_name}\u0000${value.field_value_name}`;
      let dimension = dimensions.get(key);
      if (dimension === undefined) {
        dimension = {
          key: dimensionKey(value.field_name),
          fieldId: value.svc_field_id,
          field: value.field_name,
          value: value.field_value_name,
        };
        dimensions.set(key, dimension);
      }
      return dimension;
    },
  };
}

/** A UTC day of microseconds since the epoch, "2026-06-11"; each day written once (a file has few days and many records). */
const DAY_MICROS = 86_400_000_000;
const days = new Map<number, string>();
function dayOf(micros: number): string {
  const day = Math.floor(micros / DAY_MICROS);
  let known = days.get(day);
  if (known === undefined) {
    known = new Date(day * 86_400_000).toISOString().slice(0, 10);
    if (days.size < 100_000) days.set(day, known);
  }
  return known;
}

/**
 * One record → its entry, or what keeps it out: not READY_FOR_EXPORT, an economic line without a GL account,
 * an amount the currency's precision cannot hold.
 */
export function entryOf(row: ShownRecordRow, options: MappingOptions, seen: Seen = newSeen()): Entry | RecordProblem {
  const problems: string[] = [];
  if (row.review_status !== 'READY_FOR_EXPORT') problems.push(`is ${row.review_status}, not READY_FOR_EXPORT`);
  const exponent = CURRENCY_EXPONENTS.get(row.currency);
  if (exponent === undefined) problems.push(`its currency ${row.currency} has no known precision (ISO 4217)`);
  const lines: LineItem[] = JSON.parse(row.line_items_json);
  const economic = LEDGER[row.type].economic;
  const root = ROOT_OF_ECONOMIC[LEDGER[row.type].economicAccount] ?? 'Expenses';
  const postings: Posting[] = [];
  lines.forEach((line, i) => {
    const minor = toMinor({ amount: line.amount.amount, currency: row.currency });
    if (typeof minor !== 'number') {
      if (exponent !== undefined) problems.push(`line ${i + 1} (${line.id}): amount ${minor.message}`);
      return;
    }
    const dimensions: Dimension[] = [];
    let account: BookAccount | null = null;
    for (const value of line.accounting_field_values) {
      if (isAccountField(value, options)) account = seen.account(value, root);
      else dimensions.push(seen.dimension(value));
    }
    const balancing = line.type === economic ? null : balancingAccountOf(row.type);
    if (balancing !== null) account = options.balancingAccounts[balancing];
    if (account === null) {
      problems.push(`line ${i + 1} (${line.id}) has no GL account`);
      return;
    }
    postings.push({
      account,
      side: line.type,
      minor,
      currency: row.currency,
      exponent: exponent ?? 0,
      memo: line.memo,
      dimensions,
      balancing,
    });
  });
  if (problems.length > 0) return { accounting_record_id: row.id, review_status: row.review_status, problems };
  const vendor: { name?: unknown } | null = row.vendor_json === null ? null : JSON.parse(row.vendor_json);
  return {
    recordId: row.id,
    type: row.type,
    date: dayOf(Number(row.erp_posting_date)),
    payee: typeof vendor?.name === 'string' ? vendor.name : null,
    narration: row.memo ?? row.type,
    invoiceNumber: row.invoice_number,
    postings,
  };
}

/** Every record's entry, or every record's problems (nothing half-mapped). */
export function mapRecords(
  rows: readonly ShownRecordRow[],
  options: MappingOptions,
): { entries: Entry[]; refused: RecordProblem[] } {
  const entries: Entry[] = [];
  const refused: RecordProblem[] = [];
  const seen = newSeen();
  for (const row of rows) {
    const mapped = entryOf(row, options, seen);
    if ('problems' in mapped) refused.push(mapped);
    else entries.push(mapped);
  }
  return { entries, refused };
}

export { decimal, signed } from './exports.amounts.js';
