import type { FieldDto } from '../modules/fields/fields.schemas.js';
import type { FieldValueDto } from '../modules/field-values/field-values.schemas.js';
import type { Coding } from '../modules/field-values/field-values.service.js';
import type { LastExportResult } from '../modules/accounting/accounting.tables.js';
import { codingOf, type RecordDraft } from '../modules/accounting/ingest.service.js';
import { RECORD_TYPES, sourceTypeOf, type RecordType } from '../modules/accounting/ledger.js';
import { REVIEW_STATUSES, type ReviewStatus } from '../modules/accounting/lifecycle.js';
import { SOURCE_STATUSES_BY_TYPE, type SourceStatus } from '../modules/accounting/source-status.js';

/** The demo chart: four fields, the share of the values each gets, and the words their values are made of. */
export const DEMO_FIELDS = [
  {
    name: 'GL Account',
    remote: 'GL_ACCOUNT',
    share: 0.4,
    words: [
      'Travel',
      'Meals',
      'Software',
      'Office Supplies',
      'Advertising',
      'Other G&A',
      'Professional Fees',
      'Rent',
      'Telephone',
      'Training',
    ],
  },
  {
    name: 'Department',
    remote: 'DEPARTMENT',
    share: 0.2,
    words: ['Engineering', 'Sales', 'Marketing', 'Finance', 'Operations', 'Support', 'People'],
  },
  {
    name: 'Location',
    remote: 'LOCATION',
    share: 0.2,
    words: ['New York', 'San Francisco', 'London', 'Berlin', 'Tokyo', 'Remote'],
  },
  {
    name: 'Class',
    remote: 'CLASS',
    share: 0.2,
    words: ['Recurring', 'One-off', 'Capital', 'Client billable', 'Internal'],
  },
] as const;
export type DemoField = (typeof DEMO_FIELDS)[number];

export const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tim'];
export const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Perlman',
  'Berners-Lee',
];

/**
 * The demo company's person `i` (0–39): forty people, forty emails (an email names a person to suggestions and the
 * console). People ten apart share a first name, so their last names move on by one for every ten.
 */
export function demoPerson(i: number): { first_name: string; last_name: string; email: string } {
  const first = FIRST[i % FIRST.length]!;
  const last = LAST[(i * 7 + Math.floor(i / FIRST.length)) % LAST.length]!;
  return { first_name: first, last_name: last, email: `${first}.${last}@example.invalid`.toLowerCase() };
}
const ROLES = ['EMPLOYEE', 'EMPLOYEE', 'EMPLOYEE', 'CARD_ADMIN', 'BOOKKEEPER', 'AP_CLERK', 'ACCOUNT_ADMIN'];
const VENDORS = [
  'Delta Air Lines',
  'Uber',
  'AWS',
  'Staples',
  'WeWork',
  'Slack',
  'Google Ads',
  'Marriott',
  'Figma',
  'FedEx',
  'Blue Bottle',
  'Deloitte',
];
const CURRENCIES = ['USD', 'USD', 'USD', 'USD', 'EUR', 'GBP', 'JPY', 'KWD'];
/** US dollars per unit, roughly: a card program billed in USD charges spend of other entities at these rates. */
const USD_RATES: Readonly<Record<string, number>> = { EUR: 1.08, GBP: 1.27, JPY: 0.0067, KWD: 3.25 };
/** How often the activity of each status is booked, beyond its type's default (source-status.ts). */
const STATUS_ODDS: Readonly<Partial<Record<SourceStatus, number>>> = { DRAFT: 0.15, APPROVED: 0.35, PENDING: 0.1 };
const DAY = 24 * 3600 * 1_000_000;

/**
 * What a demo record's activity says beyond its amounts and coding, drawn the same way by both generators (this
 * file's and seed-history.ts's): its id at the source, the USD billing of card spend in another currency (`usdRate`:
 * USD per unit of `currency`, undefined where there is none), the activity's status, and the last export result.
 */
export function activityOf(
  random: () => number,
  draft: {
    n: number;
    type: RecordType;
    state: ReviewStatus;
    currency: string;
    amount: number;
    scale: number;
    usdRate?: number;
    postedAt: number;
  },
) {
  const { n, type, state, currency, amount, scale, usdRate, postedAt } = draft;
  const source = sourceTypeOf(type);
  // Half the card spend booked in another currency is charged to a USD-billed card.
  const billedInUsd = source === 'CARD' && usdRate !== undefined && random() < 0.5;
  const statuses = SOURCE_STATUSES_BY_TYPE[type];
  const roll = random();
  let odds = 0;
  const status = statuses.slice(1).find((candidate) => roll < (odds += STATUS_ODDS[candidate] ?? 0)) ?? statuses[0]!;
  const isBill = source === 'BILL';
  const failed = state === 'REVIEW' && random() < 0.1;
  const lastExport: Omit<LastExportResult, 'reported_at'> | null =
    state === 'EXPORTED'
      ? {
          status: 'SUCCESS',
          reference_id: `erp_${n}`,
          deep_link_url: `https://erp.example.invalid/txn/${n}`,
          error_message: null,
        }
      : failed
        ? { status: 'FAILURE', reference_id: null, deep_link_url: null, error_message: 'Invalid GL account' }
        : null;
  return {
    failed,
    /** The draft's members these decide. */
    fields: {
      type,
      reviewStatus: state,
      sourceId: `${isBill ? 'bill' : source === 'CARD' ? 'expense' : 'reimbursement'}_${String(n + 1).padStart(9, '0')}`,
      currency,
      amountMinor: amount,
      originalCurrency: currency,
      originalAmountMinor: amount,
      billingCurrency: billedInUsd ? 'USD' : null,
      billingAmountMinor: billedInUsd ? Math.max(1, Math.round((amount / scale) * usdRate * 100)) : null,
      status,
      postedAt,
      erpPostingDate: postedAt,
      dueAt: isBill ? postedAt + 30 * DAY : null,
      invoiceNumber: isBill ? `INV-${String(n + 1).padStart(7, '0')}` : null,
      lastExport,
      // Reported a few days after posting (the import keeps it at most at its own time): spread over the year,
      // so the overview's exports per day show the last 30 days' share. From n, not random(): the data drawn
      // after it stays as it was.
      lastExportAt: lastExport === null ? undefined : postedAt + ((n % 7) + 1) * DAY,
    },
  };
}

/** A small seeded generator: the same arguments make the same data shape, and it is fast. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The `i`-th demo value of a field: "6010 Meals" for GL accounts, "Sales 2" for the others. */
export function demoValueName(spec: DemoField, i: number): string {
  const word = spec.words[i % spec.words.length]!;
  if (spec.name === 'GL Account') return `${6000 + i * 10} ${word}`;
  return i >= spec.words.length ? `${word} ${Math.floor(i / spec.words.length) + 1}` : word;
}

/** A field's values as codings of a line. */
export function codingsOf(field: FieldDto, values: readonly FieldValueDto[]): Coding[] {
  return values.map((v) => ({
    field_id: field.svc_id,
    field_name: field.name,
    field_remote_id: field.remote_id,
    svc_id: v.svc_id,
    value: v.value,
    remote_id: v.remote_id,
    is_disabled: v.is_disabled,
    field_is_disabled: field.is_disabled,
  }));
}

/**
 * Demo records: every type meets every review state within the first 76 records; amounts in the currency's
 * minor units, some split over up to three coded lines; exported records carry a successful export, some in
 * REVIEW a failed one. The source activity is mostly in its type's default status (documents SUBMITTED, money
 * movements COMPLETED), some drafts, approved documents and pending movements; card spend booked outside USD is
 * half the time billed in USD. `fields` are the codings of GL account, department, location and class, in that order.
 */
export function demoRecords(seed: number, now: number, fields: readonly (readonly Coding[])[]) {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const users = Array.from({ length: 40 }, (_, i) => ({
    id: `cuuser_${String(i + 1).padStart(6, '0')}`,
    ...demoPerson(i),
    role: ROLES[i % ROLES.length]!,
    status: i % 13 === 12 ? 'DISABLED' : 'ACTIVE',
    department_name: DEMO_FIELDS[1].words[i % DEMO_FIELDS[1].words.length]!,
  }));
  const vendors = VENDORS.map((name, i) => ({
    id: `vendor_${String(i + 1).padStart(6, '0')}`,
    name,
    contact_name: i % 3 === 0 ? `${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}` : null,
    email: i % 2 === 0 ? `billing@${name.toLowerCase().replace(/[^a-z]/g, '')}.example.invalid` : null,
    phone: null,
    website: `https://${name.toLowerCase().replace(/[^a-z]/g, '')}.example.invalid/`,
  }));
  const yearAgo = now - 365 * DAY;

  return (n: number): RecordDraft => {
    const type: RecordType = RECORD_TYPES[n % RECORD_TYPES.length]!;
    // Type n mod 19, state (type + round) mod 4: each type takes each state once in every 76 records.
    const round = Math.floor(n / RECORD_TYPES.length);
    const status: ReviewStatus = REVIEW_STATUSES[((n % RECORD_TYPES.length) + round) % REVIEW_STATUSES.length]!;
    const currency = pick(CURRENCIES);
    const scale = currency === 'JPY' ? 1 : currency === 'KWD' ? 1000 : 100;
    const amount = Math.max(1, Math.round((5 + random() * random() * 2000) * scale));
    const parts = random() < 0.3 ? 1 + Math.floor(random() * 3) : 1;
    const weights = Array.from({ length: parts }, () => 1 + Math.floor(random() * 9));
    const sum = weights.reduce((a, b) => a + b, 0);
    let rest = amount;
    const lines = weights.map((w, i) => {
      const share = i === parts - 1 ? rest : Math.max(1, Math.floor((amount * w) / sum));
      rest -= share;
      const coding = fields
        .filter((values, k) => values.length > 0 && (k < 2 || random() < 0.4))
        .map((values) => codingOf(pick(values)));
      return { amount: share, memo: parts > 1 ? `Part ${i + 1} of ${parts}` : null, fieldValues: coding };
    });
    // Tiny amounts split into more parts than minor units: book them as one line.
    const economic = lines.every((l) => l.amount > 0) ? lines : [{ ...lines[0]!, amount, memo: null }];
    const postedAt = yearAgo + Math.floor(random() * 365 * 24 * 3600) * 1_000_000;
    const source = sourceTypeOf(type);
    const activity = activityOf(random, {
      n,
      type,
      state: status,
      currency,
      amount,
      scale,
      usdRate: USD_RATES[currency],
      postedAt,
    });
    const isBill = source === 'BILL';
    return {
      ...activity.fields,
      memo: random() < 0.5 ? `${pick(VENDORS)} ${type.toLowerCase().replace(/_/g, ' ')}` : null,
      lines: economic,
      user: isBill && random() < 0.5 ? null : pick(users),
      vendor: source === 'REIMBURSEMENT' && random() < 0.5 ? null : pick(vendors),
      receipts:
        random() < 0.6
          ? [{ id: `receipt_${n + 1}`, download_uris: [`https://files.example.invalid/receipt_${n + 1}.pdf`] }]
          : [],
      version: 1 + REVIEW_STATUSES.indexOf(status) + (activity.failed ? 3 : 0),
    };
  };
}

/** The system a draft's activity comes from (CARD, REIMBURSEMENT, BILL): for callers that pick among drafts. */
export const draftSource = (draft: Pick<RecordDraft, 'type'>) => sourceTypeOf(draft.type);
