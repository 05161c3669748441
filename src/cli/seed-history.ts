import { codingOf, type RecordDraft } from '../modules/accounting/ingest.service.js';
import { LEDGER, RECORD_TYPES, sourceTypeOf, type RecordType } from '../modules/accounting/ledger.js';
import { REVIEW_STATUSES, type ReviewStatus } from '../modules/accounting/lifecycle.js';
import type { Coding } from '../modules/field-values/field-values.service.js';
import {
  ACCOUNT_OF_LEDGER_SIDE,
  channelOf,
  MERCHANTS,
  OFFICES,
  USD_RATES,
  type Channel,
  type Merchant,
} from './seed-company.js';
import { activityOf, demoPerson, FIRST, LAST, mulberry32 } from './seed-data.js';

/** The company's values of each field, by name ("6010 Travel", "Sales"); a value the chart lacks is absent. */
export interface CompanyChart {
  gl: ReadonlyMap<string, Coding>;
  departments: ReadonlyMap<string, Coding>;
  locations: ReadonlyMap<string, Coding>;
  classes: ReadonlyMap<string, Coding>;
}

const ROLES = ['EMPLOYEE', 'EMPLOYEE', 'EMPLOYEE', 'CARD_ADMIN', 'BOOKKEEPER', 'AP_CLERK', 'ACCOUNT_ADMIN'];
/** Engineering is the largest department, then Sales. */
const DEPARTMENTS = ['Engineering', 'Sales', 'Engineering', 'Marketing', 'Operations', 'Sales', 'Finance', 'Support'];
const LOCATIONS = Object.keys(OFFICES);
const DAY = 24 * 3600 * 1_000_000;

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** The company's people: each in a department and an office (the names of those fields' values). */
export function companyUsers() {
  return Array.from({ length: 40 }, (_, i) => {
    const department = i % 10 === 9 ? 'People' : DEPARTMENTS[i % DEPARTMENTS.length]!;
    const location = LOCATIONS[(i * 7) % LOCATIONS.length]!;
    return {
      id: `cuuser_${String(i + 1).padStart(6, '0')}`,
      ...demoPerson(i),
      role: ROLES[i % ROLES.length]!,
      status: i % 13 === 12 ? 'DISABLED' : 'ACTIVE',
      department_id: `dept_${slug(department)}`,
      department_name: department,
      location_id: `loc_${slug(location)}`,
      location_name: location,
    };
  });
}
type User = ReturnType<typeof companyUsers>[number];

const vendorOf = (merchant: Merchant, i: number) => ({
  id: `vendor_${slug(merchant.name)}`,
  name: merchant.name,
  contact_name: i % 3 === 0 ? `${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}` : null,
  email: i % 2 === 0 ? `billing@${slug(merchant.name)}.example.invalid` : null,
  phone: null,
  website: `https://${slug(merchant.name)}.example.invalid/`,
});

/** The account a record's economic lines book to: its merchant's for an expense (or a sale), else its side's. */
export function accountOf(type: RecordType, merchant: Merchant | null): string {
  const side = LEDGER[type].economicAccount;
  if (side === 'expense' || side === 'revenue') return merchant?.account ?? '6900 Other G&A';
  return ACCOUNT_OF_LEDGER_SIDE[side]!;
}

/**
 * The company's records, `draft(n)` the n-th: type n mod 19, in the review state (type + round) mod 4, so that each
 * type meets each state once in every 76 records. Each deals with a merchant of its type's kind (card spend,
 * vendor bills, customers, the card issuer) and is coded as its state says: PREPARE waits uncoded; REVIEW carries
 * what a person coded first (GL account and department); READY_FOR_EXPORT and EXPORTED are fully coded (GL account,
 * department, office, class). A merchant's expenses are always booked to its account, the same every time (no
 * bill is Rent but the landlord's); payments, card rewards and sales to theirs.
 */
export function companyHistory(seed: number, now: number, chart: CompanyChart) {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const users = companyUsers();
  const active = users.filter((u) => u.status === 'ACTIVE');
  const cardAdmins = active.filter((u) => u.role === 'CARD_ADMIN');
  const clerks = active.filter((u) => u.role === 'AP_CLERK');
  const vendors = new Map(MERCHANTS.map((merchant, i) => [merchant, vendorOf(merchant, i)]));
  // Merchants whose account the chart has (all of the channel when it has none: their lines stay without a GL).
  const pools = new Map<Channel, Merchant[]>();
  for (const channel of ['CARD', 'REIMBURSEMENT', 'BILL', 'CUSTOMER', 'CARD_ISSUER'] as const) {
    const all = MERCHANTS.filter((m) => m.channels.includes(channel));
    const booked = all.filter((m) => chart.gl.has(m.account));
    pools.set(channel, booked.length > 0 ? booked : all);
  }
  const departments = [...chart.departments.values()];
  const yearAgo = now - 365 * DAY;

  const codingsOf = (type: RecordType, merchant: Merchant | null, user: User | null, state: ReviewStatus) => {
    const department = chart.departments.get(user?.department_name ?? merchant?.department ?? 'Finance');
    const full = state === 'READY_FOR_EXPORT' || state === 'EXPORTED';
    return (part: number): Coding[] => {
      const dept = part > 0 && departments.length > 0 ? pick(departments) : department;
      const values = [chart.gl.get(accountOf(type, merchant)), dept];
      if (full) {
        values.push(chart.locations.get(user?.location_name ?? 'New York'));
        values.push(chart.classes.get(merchant?.class ?? 'Internal'));
      }
      return values.filter((v) => v !== undefined);
    };
  };

  return (n: number): RecordDraft => {
    const type: RecordType = RECORD_TYPES[n % RECORD_TYPES.length]!;
    const round = Math.floor(n / RECORD_TYPES.length);
    const state: ReviewStatus = REVIEW_STATUSES[((n % RECORD_TYPES.length) + round) % REVIEW_STATUSES.length]!;
    const source = sourceTypeOf(type);
    const channel = channelOf(type);
    const merchant = channel ? pick(pools.get(channel)!) : null;
    const user: User | null =
      channel === 'CARD_ISSUER'
        ? pick(cardAdmins)
        : source === 'BILL'
          ? random() < 0.5
            ? pick(clerks)
            : null
          : pick(active);
    const currency =
      user && (channel === 'CARD' || channel === 'REIMBURSEMENT' || channel === null) && source !== 'BILL'
        ? OFFICES[user.location_name]!
        : 'USD';
    const scale = currency === 'JPY' ? 1 : 100;
    const [min, max] = merchant?.usd ?? (source === 'BILL' ? [1000, 50000] : [20, 1500]);
    const usd = min + (max - min) * random() * random();
    const amount = Math.max(1, Math.round((usd / USD_RATES[currency]!) * scale));

    const coded = state !== 'PREPARE';
    const parts = coded && random() < 0.3 ? 2 + Math.floor(random() * 2) : 1;
    const weights = Array.from({ length: parts }, () => 1 + Math.floor(random() * 9));
    const sum = weights.reduce((a, b) => a + b, 0);
    const codings = codingsOf(type, merchant, user, state);
    let rest = amount;
    const lines = weights.map((w, i) => {
      const share = i === parts - 1 ? rest : Math.max(1, Math.floor((amount * w) / sum));
      rest -= share;
      const fieldValues = coded ? codings(i).map(codingOf) : [];
      return { amount: share, memo: parts > 1 ? `Part ${i + 1} of ${parts}` : null, fieldValues };
    });
    // Tiny amounts split into more parts than minor units: book them as one line.
    const economic = lines.every((l) => l.amount > 0) ? lines : [{ ...lines[0]!, amount, memo: null }];

    const postedAt = yearAgo + Math.floor(random() * 365 * 24 * 3600) * 1_000_000;
    const activity = activityOf(random, {
      n,
      type,
      state,
      currency,
      amount,
      scale,
      usdRate: currency === 'USD' ? undefined : USD_RATES[currency],
      postedAt,
    });
    return {
      ...activity.fields,
      memo: merchant && random() < 0.6 ? merchant.memo : null,
      lines: economic,
      user,
      vendor: merchant ? vendors.get(merchant)! : null,
      receipts:
        random() < 0.6
          ? [{ id: `receipt_${n + 1}`, download_uris: [`https://files.example.invalid/receipt_${n + 1}.pdf`] }]
          : [],
      version: 1 + REVIEW_STATUSES.indexOf(state) + (activity.failed ? 3 : 0),
    };
  };
}
