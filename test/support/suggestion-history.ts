import { mulberry32 } from '../../src/cli/seed-data.js';
import type { Api } from './api.js';
import { PEOPLE } from './accounting.js';
import { BATCH } from './suggestions.js';

/**
 * A seeded company history for measuring suggestions (docs/suggestions.md, "Accuracy"): merchants each coded to
 * their GL account (two of them split between two), users each in a department, 5% of GL codings and 3% of
 * department codings noise, records posted over a year. Deterministic: the same seed makes the same company.
 */

/** mulberry32 (the seed command's generator), so the history is the same on every run. */
export const seeded = mulberry32;

export const GL_ACCOUNTS = [
  '6010 Travel',
  '6020 Meals & Entertainment',
  '6030 Software',
  '6040 Office Supplies',
  '6050 Advertising',
  '6060 Professional Services',
  '6070 Shipping & Postage',
  '6080 Utilities',
  '6090 Telephone & Internet',
  '6100 Training',
  '6110 Equipment',
] as const;
export const DEPARTMENTS = ['Sales', 'Engineering', 'Marketing', 'Operations'] as const;
type Gl = (typeof GL_ACCOUNTS)[number];

/** Merchant, its GL accounts with their shares, how often it is seen (relative), its typical amount, its words. */
const MERCHANTS: [string, [Gl, number][], number, number, string][] = [
  ['Uber', [['6010 Travel', 1]], 30, 28, 'ride'],
  ['Lyft', [['6010 Travel', 1]], 12, 24, 'ride'],
  ['Delta Air Lines', [['6010 Travel', 1]], 8, 420, 'flight'],
  ['United Airlines', [['6010 Travel', 1]], 6, 380, 'flight'],
  ['Marriott', [['6010 Travel', 1]], 6, 260, 'hotel'],
  ['Hilton', [['6010 Travel', 1]], 4, 240, 'hotel'],
  ['Starbucks', [['6020 Meals & Entertainment', 1]], 25, 9, 'coffee'],
  ['DoorDash', [['6020 Meals & Entertainment', 1]], 14, 45, 'team lunch'],
  ['Sweetgreen', [['6020 Meals & Entertainment', 1]], 10, 18, 'lunch'],
  ['Chipotle', [['6020 Meals & Entertainment', 1]], 6, 15, 'lunch'],
  ['Slack', [['6030 Software', 1]], 6, 850, 'subscription'],
  ['GitHub', [['6030 Software', 1]], 6, 420, 'subscription'],
  ['Figma', [['6030 Software', 1]], 5, 150, 'seats'],
  ['Atlassian', [['6030 Software', 1]], 5, 600, 'licences'],
  ['Zoom', [['6030 Software', 1]], 4, 160, 'subscription'],
  ['AWS', [['6030 Software', 1]], 6, 3200, 'cloud'],
  ['Notion', [['6030 Software', 1]], 3, 96, 'seats'],
  ['Staples', [['6040 Office Supplies', 1]], 8, 65, 'supplies'],
  ['Office Depot', [['6040 Office Supplies', 1]], 4, 80, 'supplies'],
  [
    'Amazon',
    [
      ['6040 Office Supplies', 0.7],
      ['6110 Equipment', 0.3],
    ],
    18,
    120,
    'order',
  ],
  [
    'Costco',
    [
      ['6020 Meals & Entertainment', 0.6],
      ['6040 Office Supplies', 0.4],
    ],
    6,
    210,
    'kitchen',
  ],
  ['Google Ads', [['6050 Advertising', 1]], 6, 2500, 'campaign'],
  ['LinkedIn Ads', [['6050 Advertising', 1]], 4, 1800, 'campaign'],
  ['Meta Ads', [['6050 Advertising', 1]], 4, 1500, 'campaign'],
  ['Deloitte', [['6060 Professional Services', 1]], 2, 9000, 'audit'],
  ['Cooley LLP', [['6060 Professional Services', 1]], 2, 6500, 'legal'],
  ['FedEx', [['6070 Shipping & Postage', 1]], 7, 40, 'shipment'],
  ['UPS', [['6070 Shipping & Postage', 1]], 5, 35, 'shipment'],
  ['USPS', [['6070 Shipping & Postage', 1]], 3, 12, 'postage'],
  ['PG&E', [['6080 Utilities', 1]], 3, 700, 'electricity'],
  ['Comcast', [['6090 Telephone & Internet', 1]], 3, 180, 'internet'],
  ['Verizon', [['6090 Telephone & Internet', 1]], 4, 240, 'phones'],
  ['Coursera', [['6100 Training', 1]], 2, 400, 'course'],
  ['O’Reilly', [['6100 Training', 1]], 2, 500, 'books'],
  ['Apple', [['6110 Equipment', 1]], 4, 2100, 'laptop'],
  ['Dell', [['6110 Equipment', 1]], 2, 1400, 'monitor'],
];

const USERS = Array.from({ length: 12 }, (_, i) => ({
  email: `employee${i + 1}@company.example`,
  department: DEPARTMENTS[i % DEPARTMENTS.length]!,
}));

export interface CompanyRecord {
  day: number;
  merchant: string;
  email: string;
  type: 'CARD_EXPENSE_POST' | 'REIMBURSEMENT_EXPENSE_POST';
  amount: number;
  memo: string;
  gl: Gl;
  department: (typeof DEPARTMENTS)[number];
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

function weighted<T>(random: () => number, items: readonly (readonly [T, number])[]): T {
  const total = items.reduce((sum, [, w]) => sum + w, 0);
  let r = random() * total;
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return items.at(-1)![0];
}

/** `count` records posted over 365 days, oldest first. */
export function company(seed: number, count: number): CompanyRecord[] {
  const random = seeded(seed);
  const merchants = MERCHANTS.map((m) => [m, m[2]] as const);
  const out: CompanyRecord[] = [];
  for (let i = 0; i < count; i++) {
    const [merchant, gls, , typical, words] = weighted(random, merchants);
    const user = pick(random, USERS);
    const noisyGl = random() < 0.05;
    const noisyDept = random() < 0.03;
    out.push({
      day: Math.floor((i * 365) / count),
      merchant,
      email: user.email,
      type: random() < 0.8 ? 'CARD_EXPENSE_POST' : 'REIMBURSEMENT_EXPENSE_POST',
      amount: Math.round(typical * (0.5 + random()) * 100) / 100,
      memo: `${merchant} ${words}`,
      gl: noisyGl ? pick(random, GL_ACCOUNTS) : weighted(random, gls),
      department: noisyDept ? pick(random, DEPARTMENTS) : user.department,
    });
  }
  return out;
}

/** The day-th day after 2025-01-01, at noon. */
const postedAt = (day: number) => new Date(Date.UTC(2025, 0, 1 + day, 12)).toISOString().replace('Z', '000Z');

export interface Accuracy {
  held_out: number;
  /** Held-out records of a merchant seen in the first 80%. */
  seen: number;
  gl_correct: number;
  gl_accuracy: number;
  department_correct: number;
  department_accuracy: number;
}

/**
 * Makes the company's GL and Department fields and its history through the API: the first 80% approved
 * (READY_FOR_EXPORT, coded), the last 20% held out (PREPARE, uncoded); asks the suggestions of the held-out
 * records, 200 at a time; answers the top-1 accuracy over those whose merchant the history has seen.
 */
export async function measure(api: Api, records: readonly CompanyRecord[]): Promise<Accuracy> {
  const gl = await api.newCoding(
    'GL Account',
    GL_ACCOUNTS.map((value) => ({ value })),
  );
  const dept = await api.newCoding(
    'Department',
    DEPARTMENTS.map((value) => ({ value })),
  );
  const valueId = (coding: typeof gl, name: string) => coding.values.find((v: any) => v.value === name)!.svc_id;
  const split = Math.floor(records.length * 0.8);
  const item = (r: CompanyRecord, coded: boolean) => ({
    type: r.type,
    amount: { amount: r.amount, currency: 'USD' },
    posted_at: postedAt(r.day),
    memo: r.memo,
    vendor: { id: `v_${r.merchant}`, name: r.merchant },
    user: { ...PEOPLE.user, id: r.email, email: r.email },
    review_status: coded ? 'READY_FOR_EXPORT' : 'PREPARE',
    lines: [
      {
        amount: { amount: r.amount, currency: 'USD' },
        field_values: coded
          ? [
              { field_id: gl.field.svc_id, svc_id: valueId(gl, r.gl) },
              { field_id: dept.field.svc_id, svc_id: valueId(dept, r.department) },
            ]
          : [],
      },
    ],
  });
  await api.newRecords(records.slice(0, split).map((r) => item(r, true)));
  const heldOut = records.slice(split);
  const made = await api.newRecords(heldOut.map((r) => item(r, false)));
  const seenMerchants = new Set(records.slice(0, split).map((r) => r.merchant));
  const result: Accuracy = {
    held_out: heldOut.length,
    seen: 0,
    gl_correct: 0,
    gl_accuracy: 0,
    department_correct: 0,
    department_accuracy: 0,
  };
  for (let i = 0; i < made.length; i += 200) {
    const page = made.slice(i, i + 200);
    const res = await api.post(BATCH, { accounting_record_ids: page.map((r) => r.id) });
    if (res.status !== 200) throw new Error(res.text);
    res.body.items.forEach((answer: any, k: number) => {
      const truth = heldOut[i + k]!;
      if (!seenMerchants.has(truth.merchant)) return;
      result.seen += 1;
      const top = (fieldId: string) => answer.suggestions.find((s: any) => s.field_id === fieldId)?.value;
      if (top(gl.field.svc_id) === truth.gl) result.gl_correct += 1;
      if (top(dept.field.svc_id) === truth.department) result.department_correct += 1;
    });
  }
  result.gl_accuracy = result.gl_correct / result.seen;
  result.department_accuracy = result.department_correct / result.seen;
  return result;
}
