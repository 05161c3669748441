import type { RecordType } from '../modules/accounting/ledger.js';

/**
 * The company `svc seed` makes: a chart of accounts, its departments and offices, its people, and the merchants,
 * vendors and customers it deals with, each booked to one account, always the same. The records
 * (seed-history.ts) are drawn from these, so that a merchant's history is coded coherently and coding rules and
 * suggestions have something true to learn from. Plain data: no randomness here.
 */

/** The GL accounts, most needed first: a chart cut short (few values) keeps the accounts most records use. */
export const ACCOUNTS = [
  '6010 Travel',
  '6020 Meals & Entertainment',
  '6100 Software & Subscriptions',
  '6300 Office Supplies',
  '1000 Operating Cash',
  '2100 Corporate Card Payable',
  '4000 Revenue',
  '6200 Rent',
  '6400 Advertising',
  '6500 Professional Fees',
  '5000 Cost of Goods Sold',
  '4900 Card Rewards',
  '6600 Shipping & Postage',
  '6700 Telephone & Internet',
  '6800 Training & Education',
  '2000 Accounts Payable',
  '1200 Accounts Receivable',
  '2200 Reimbursements Payable',
  '6900 Other G&A',
] as const;
export type Account = (typeof ACCOUNTS)[number];

/** The `i`-th GL account of the chart: the company's own, then numbered ones for a chart asked to be larger. */
export function accountName(i: number): string {
  return i < ACCOUNTS.length
    ? ACCOUNTS[i]!
    : `${7000 + (i - ACCOUNTS.length) * 10} Other Expense ${i - ACCOUNTS.length + 1}`;
}

/**
 * The account a record's economic line books to when it is not an expense (ledger.ts's economicAccount): money
 * moving through the bank, the card's liability, sales and card rewards.
 */
export const ACCOUNT_OF_LEDGER_SIDE: Readonly<Record<string, Account>> = {
  'bank (cash)': '1000 Operating Cash',
  'card liability': '2100 Corporate Card Payable',
  revenue: '4000 Revenue',
  'rewards income': '4900 Card Rewards',
};

/**
 * The account of each balancing line (an export mapping's balancing_accounts, docs/exports.md), from the chart:
 * the card's liability, the operating bank, payables and receivables; the two clearing accounts are the chart's
 * too, though no line is ever coded to them (so they are no GL values).
 */
export const BALANCING_ACCOUNTS = {
  CARD_LIABILITY: 'Liabilities:2100 Corporate Card Payable',
  BANK: 'Assets:1000 Operating Cash',
  REIMBURSEMENTS_PAYABLE: 'Liabilities:2200 Reimbursements Payable',
  REIMBURSEMENT_CLEARING: 'Assets:1010 Reimbursement Clearing',
  ACCOUNTS_RECEIVABLE: 'Assets:1200 Accounts Receivable',
  ACCOUNTS_PAYABLE: 'Liabilities:2000 Accounts Payable',
  BILL_PAY_CLEARING: 'Assets:1020 Bill Pay Clearing',
} as const;
/** The company's books are in US dollars; its offices abroad spend in their currencies. */
export const HOME_CURRENCY = 'USD';

/** Where the company's people work, and the currency they spend in there. */
export const OFFICES: Readonly<Record<string, string>> = {
  'New York': 'USD',
  'San Francisco': 'USD',
  London: 'GBP',
  Berlin: 'EUR',
  Tokyo: 'JPY',
  Remote: 'USD',
};
/** US dollars per unit, roughly: amounts are thought in dollars and booked in the currency spent. */
export const USD_RATES: Readonly<Record<string, number>> = { USD: 1, EUR: 1.08, GBP: 1.27, JPY: 0.0067 };

/** Who deals with a merchant: card spend, out-of-pocket spend (reimbursed), vendor bills, customers' invoices. */
export type Channel = 'CARD' | 'REIMBURSEMENT' | 'BILL' | 'CUSTOMER' | 'CARD_ISSUER';

export interface Merchant {
  name: string;
  /** The account its expenses (or its invoices, for a customer) are booked to. */
  account: Account;
  channels: readonly Channel[];
  /** The usual amount, in US dollars: [min, max]; equal for a fixed charge (rent). */
  usd: readonly [number, number];
  /** What a line says, when the source sends a memo. */
  memo: string;
  /** The department a bill is booked to when no person's department decides. */
  department: string;
  /** The class the company books it under. */
  class: string;
}

const m = (
  name: string,
  account: Account,
  channels: readonly Channel[],
  usd: readonly [number, number],
  memo: string,
  department: string,
  cls = 'Recurring',
): Merchant => ({ name, account, channels, usd, memo, department, class: cls });

const SPEND: readonly Channel[] = ['CARD', 'REIMBURSEMENT'];

/** The landlord: the one vendor whose bills are Rent. */
export const LANDLORD = 'Harborview Properties LLC';

export const MERCHANTS: readonly Merchant[] = [
  m('Uber', '6010 Travel', SPEND, [8, 90], 'Ride to a client meeting', 'Sales', 'Client billable'),
  m('Lyft', '6010 Travel', SPEND, [8, 70], 'Ride to the airport', 'Sales', 'Client billable'),
  m('Delta Air Lines', '6010 Travel', SPEND, [180, 1200], 'Flight to a customer visit', 'Sales', 'Client billable'),
  m('United Airlines', '6010 Travel', SPEND, [150, 1100], 'Flight to the offsite', 'Operations', 'One-off'),
  m('Marriott', '6010 Travel', SPEND, [150, 700], 'Hotel, two nights', 'Sales', 'Client billable'),
  m(
    'Blue Bottle Coffee',
    '6020 Meals & Entertainment',
    SPEND,
    [5, 60],
    'Coffee with a candidate',
    'People',
    'Internal',
  ),
  m('Sweetgreen', '6020 Meals & Entertainment', SPEND, [12, 180], 'Team lunch', 'Engineering', 'Internal'),
  m(
    'DoorDash',
    '6020 Meals & Entertainment',
    ['CARD'],
    [20, 250],
    'Dinner during the release',
    'Engineering',
    'Internal',
  ),
  m('GitHub', '6100 Software & Subscriptions', ['CARD'], [20, 2500], 'GitHub seats', 'Engineering'),
  m('Figma', '6100 Software & Subscriptions', ['CARD'], [15, 900], 'Figma editors', 'Marketing'),
  m('Slack', '6100 Software & Subscriptions', ['CARD'], [50, 3000], 'Slack workspace', 'Operations'),
  m('Zoom', '6100 Software & Subscriptions', ['CARD'], [15, 600], 'Zoom licences', 'Sales'),
  m('Amazon Web Services', '6100 Software & Subscriptions', ['BILL'], [1200, 24000], 'Hosting', 'Engineering'),
  m('Staples', '6300 Office Supplies', [...SPEND, 'BILL'], [10, 400], 'Paper and toner', 'Operations', 'One-off'),
  m('Amazon Business', '6300 Office Supplies', ['CARD'], [15, 600], 'Desk supplies', 'Operations', 'One-off'),
  m(LANDLORD, '6200 Rent', ['BILL'], [18500, 18500], 'Office rent, 5th floor', 'Operations'),
  m('Google Ads', '6400 Advertising', ['CARD', 'BILL'], [200, 8000], 'Search campaign', 'Marketing'),
  m('LinkedIn Ads', '6400 Advertising', ['CARD'], [150, 5000], 'Hiring campaign', 'Marketing', 'One-off'),
  m('Deloitte', '6500 Professional Fees', ['BILL'], [2000, 25000], 'Audit fieldwork', 'Finance', 'One-off'),
  m(
    'Cooley LLP',
    '6500 Professional Fees',
    ['BILL'],
    [1500, 20000],
    'Legal: commercial contracts',
    'Finance',
    'One-off',
  ),
  m('Twilio', '5000 Cost of Goods Sold', ['BILL'], [300, 6000], 'SMS usage', 'Engineering'),
  m(
    'FedEx',
    '6600 Shipping & Postage',
    [...SPEND, 'BILL'],
    [12, 300],
    'Contracts to a customer',
    'Operations',
    'One-off',
  ),
  m('Verizon', '6700 Telephone & Internet', ['BILL'], [150, 900], 'Mobile plans', 'Operations'),
  m('Comcast Business', '6700 Telephone & Internet', ['BILL'], [120, 400], 'Office internet', 'Operations'),
  m('Coursera', '6800 Training & Education', SPEND, [40, 400], 'Course for the team', 'People', 'Internal'),
  m('Acme Corp', '4000 Revenue', ['CUSTOMER'], [2000, 60000], 'Subscription, annual', 'Sales', 'Client billable'),
  m('Globex', '4000 Revenue', ['CUSTOMER'], [2000, 40000], 'Implementation services', 'Sales', 'Client billable'),
  m('Initech', '4000 Revenue', ['CUSTOMER'], [1500, 30000], 'Subscription, quarterly', 'Sales', 'Client billable'),
  m(
    'Northwind Bank',
    '2100 Corporate Card Payable',
    ['CARD_ISSUER'],
    [5000, 80000],
    'Card statement',
    'Finance',
    'Internal',
  ),
];

/** Which merchants a record of each type deals with (null: none, e.g. a payout to an employee). */
export function channelOf(type: RecordType): Channel | null {
  if (type === 'CARD_PAYMENT' || type === 'CARD_PAYMENT_REFUND' || type === 'REWARD_REDEMPTION') return 'CARD_ISSUER';
  if (type.startsWith('CARD_')) return 'CARD';
  if (type === 'INVOICE' || type === 'INVOICE_PAYMENT') return 'CUSTOMER';
  if (type === 'BILL_MONEY_MOVEMENT_PAYIN' || type.startsWith('REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT')) return null;
  if (type.startsWith('REIMBURSEMENT_')) return 'REIMBURSEMENT';
  return 'BILL';
}

/** The coding rules seeded beside the history, to try at once: [name, vendor condition, account]. */
export const SAMPLE_RULES: readonly {
  name: string;
  vendor: { operator: 'CONTAINS' | 'EQUALS'; value: string };
  account: Account;
}[] = [
  { name: 'Rides are travel (Uber)', vendor: { operator: 'CONTAINS', value: 'uber' }, account: '6010 Travel' },
  {
    name: 'AWS is software',
    vendor: { operator: 'EQUALS', value: 'Amazon Web Services' },
    account: '6100 Software & Subscriptions',
  },
  {
    name: 'Staples is office supplies',
    vendor: { operator: 'CONTAINS', value: 'staples' },
    account: '6300 Office Supplies',
  },
];
