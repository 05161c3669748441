import { mulberry32 } from '../../src/cli/seed-data.js';
import { parseDatabaseUrl, type DatabaseTarget } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { nowMicros } from '../../src/lib/clock.js';
import { codingOf } from '../../src/modules/accounting/codings.js';
import { ingestService, type RecordDraft } from '../../src/modules/accounting/ingest.service.js';
import type { RecordType } from '../../src/modules/accounting/ledger.js';
import type { ReviewStatus } from '../../src/modules/accounting/lifecycle.js';
import { defaultSourceStatus } from '../../src/modules/accounting/source-status.js';
import { authService, type Caller } from '../../src/modules/auth/auth.service.js';
import { fieldValuesService, type Coding } from '../../src/modules/field-values/field-values.service.js';
import { fieldsService } from '../../src/modules/fields/fields.service.js';

/**
 * The company the coding scenarios (bench/scenarios/coding.ts) run on: 200 vendors, each booked to one of 60 GL
 * accounts (5% noise), 60 people in 10 departments (a record's department is its person's, 3% noise), memos of a
 * few words of the vendor's kind. Deterministic (a seeded generator): the same run makes the same company.
 */

export const VENDORS = 200;
const GL_VALUES = 60;
const DEPARTMENTS = 10;
const PEOPLE = 60;
const KINDS = ['ride', 'flight', 'hotel', 'lunch', 'coffee', 'software', 'cloud', 'supplies', 'shipping', 'ads'];
const TYPES: readonly RecordType[] = ['CARD_EXPENSE_POST', 'CARD_EXPENSE_POST', 'REIMBURSEMENT_EXPENSE_POST'];

/** mulberry32, the seed command's generator. */
export const seeded = mulberry32;

export interface Chart {
  gl: Coding[];
  departments: Coding[];
}

export const vendorName = (v: number) => `Bench Vendor ${String(v).padStart(3, '0')} ${KINDS[v % KINDS.length]}`;
const person = (p: number) => ({
  id: `bench_user_${p}`,
  email: `person${p}@bench.example.invalid`,
  first_name: 'Bench',
  last_name: `Person ${p}`,
  role: 'EMPLOYEE',
  status: 'ACTIVE',
  department_id: `dep_${p % DEPARTMENTS}`,
});

/** What a record of the company is, before it is coded: the same for a draft imported and an item sent. */
export interface Shape {
  type: RecordType;
  vendor: number;
  person: number;
  amountMinor: number;
  memo: string | null;
  postedAt: number;
}

/** The n-th record of the company (`random` shared by the caller: one stream per data set). */
export function shapeOf(random: () => number, now: number): Shape {
  // Vendors seen unevenly, as a company's are: the first ones far more often.
  const vendor = Math.floor(VENDORS * random() * random());
  const kind = KINDS[vendor % KINDS.length]!;
  return {
    type: TYPES[Math.floor(random() * TYPES.length)]!,
    vendor,
    person: Math.floor(random() * PEOPLE),
    amountMinor: 100 + Math.floor(random() * random() * 200_000),
    memo: random() < 0.6 ? `${kind} for ${['client', 'team', 'office', 'travel'][vendor % 4]} ${vendor}` : null,
    postedAt: now - Math.floor(random() * 365 * 24 * 3600) * 1_000_000,
  };
}

/** The codings a person approved for a record of this shape: its vendor's GL account and its person's department. */
function approvedCodings(random: () => number, chart: Chart, s: Shape): Coding[] {
  const gl = random() < 0.05 ? Math.floor(random() * GL_VALUES) : s.vendor % GL_VALUES;
  const dept = random() < 0.03 ? Math.floor(random() * DEPARTMENTS) : s.person % DEPARTMENTS;
  return [chart.gl[gl]!, chart.departments[dept]!];
}

const vendorOf = (v: number) => ({ id: `bench_vendor_${v}`, name: vendorName(v) });

function draftOf(s: Shape, reviewStatus: ReviewStatus, codings: Coding[]): RecordDraft {
  const vendor = vendorOf(s.vendor);
  return {
    type: s.type,
    reviewStatus,
    sourceId: null,
    currency: 'USD',
    amountMinor: s.amountMinor,
    originalCurrency: 'USD',
    originalAmountMinor: s.amountMinor,
    billingCurrency: null,
    billingAmountMinor: null,
    status: defaultSourceStatus(s.type),
    postedAt: s.postedAt,
    erpPostingDate: s.postedAt,
    dueAt: null,
    invoiceNumber: null,
    memo: s.memo,
    lines: [{ amount: s.amountMinor, memo: null, fieldValues: codings.map(codingOf) }],
    user: person(s.person),
    vendor,
    receipts: [],
    lastExport: null,
    version: reviewStatus === 'READY_FOR_EXPORT' ? 3 : 1,
  };
}

/** The same record as an ingestion item of `POST /internal/v1/accounting/records` (uncoded). */
export function itemOf(s: Shape) {
  return {
    type: s.type,
    amount: { amount: s.amountMinor / 100, currency: 'USD' },
    posted_at: new Date(s.postedAt / 1000).toISOString(),
    memo: s.memo,
    user: person(s.person),
    vendor: vendorOf(s.vendor),
  };
}

export const openDb = (url: string): Db => openDatabase(parseDatabaseUrl(url) as DatabaseTarget);

/** The account with its two fields (GL account, Department) and their values. */
export async function makeChart(db: Db, caller: Caller): Promise<Chart> {
  return db.write(async (ex) => {
    await authService.ensureAccount(ex, caller.accountId, nowMicros());
    const field = async (name: string, remote: string, n: number) => {
      const f = await fieldsService.create(ex, caller, { name, group: 'ACCOUNTING', remote_id: remote });
      const items = Array.from({ length: n }, (_, i) => ({ value: `${name} ${i + 1}`, remote_id: `${remote}-${i}` }));
      const values = (await fieldValuesService.create(ex, caller, f.svc_id, items)).items;
      return values.map((v): Coding => ({
        field_id: f.svc_id,
        field_name: f.name,
        field_remote_id: f.remote_id,
        svc_id: v.svc_id,
        value: v.value,
        remote_id: v.remote_id,
        is_disabled: v.is_disabled,
        field_is_disabled: f.is_disabled,
      }));
    };
    return {
      gl: await field('GL Account', 'GL', GL_VALUES),
      departments: await field('Department', 'DEPT', DEPARTMENTS),
    };
  });
}

/**
 * Imports `count` records of the company's shapes in `status`: approved ones (READY_FOR_EXPORT) coded as a person
 * would, records under review (PREPARE) uncoded. Answers their ids, in order.
 */
export async function importShapes(
  db: Db,
  caller: Caller,
  chart: Chart,
  shapes: readonly Shape[],
  status: ReviewStatus,
  random: () => number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let at = 0; at < shapes.length; at += 5000) {
    const drafts = shapes
      .slice(at, at + 5000)
      .map((s) => draftOf(s, status, status === 'READY_FOR_EXPORT' ? approvedCodings(random, chart, s) : []));
    ids.push(...(await db.write((ex) => ingestService.importRecords(ex, caller, drafts))));
  }
  return ids;
}
