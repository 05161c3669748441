import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import type { Database, Executor } from '../db/database.js';
import type { Db } from '../db/dialect.js';
import { refreshStatistics } from '../db/statistics.js';
import { nowMicros } from '../lib/clock.js';
import { newId } from '../lib/ids.js';
import { accountingRepository, CountDeltas } from '../modules/accounting/accounting.repository.js';
import type { StoredRecord } from '../modules/accounting/accounting.tables.js';
import type { LastExportResult } from '../modules/accounting/accounting.dto.js';
import {
  buildLineItems,
  lineItemsOf,
  RECORD_TYPES,
  REVIEW_STATUSES,
  sourceTypeOf,
  type AccountingFieldValue,
  type RecordType,
  type ReviewStatus,
} from '../modules/accounting/ledger.js';
import { recordClock } from '../modules/accounting/record-clock.js';
import { authRepository } from '../modules/auth/auth.repository.js';
import { CliUsageError } from '../modules/auth/auth.service.js';

// Rows of the field-values module's table as the seed writes them (its own type may not be merged yet).
interface SeedValueTables {
  field_values: {
    account_id: string;
    field_id: string;
    svc_id: string;
    value: string;
    is_disabled: number;
    remote_id: string | null;
    value_id: string | null;
    created_at: number;
    updated_at: number;
  };
}

const FIELDS = [
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
];
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Tim'];
const LAST = [
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
const BATCH = 5000;

/** A small seeded generator: the same arguments make the same data shape, and it is fast. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function count(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new CliUsageError(`--${name} must be a whole number`);
  return Number(text);
}

interface SeedField {
  svc_id: string;
  name: string;
  remote_id: string;
  values: AccountingFieldValue[];
}

async function ensureFields(db: Executor, accountId: string, valueCount: number, now: number): Promise<SeedField[]> {
  const existing = await db.selectFrom('fields').selectAll().where('account_id', '=', accountId).execute();
  const tag = randomBytes(3).toString('hex'); // keeps remote_ids of a second run apart from the first's
  const values = db as unknown as Kysely<SeedValueTables & Database>;
  const out: SeedField[] = [];
  let left = valueCount;
  for (const [index, spec] of FIELDS.entries()) {
    let field = existing.find((f) => f.name === spec.name);
    if (!field) {
      field = {
        account_id: accountId,
        svc_id: newId('extended_field'),
        name: spec.name,
        field_group: 'ACCOUNTING',
        remote_id: spec.remote,
        integration_id: null,
        is_disabled: 0,
        created_at: now,
        updated_at: now,
      };
      await db.insertInto('fields').values(field).execute();
    }
    const n = index === FIELDS.length - 1 ? left : Math.round(valueCount * spec.share);
    left -= n;
    const rows = Array.from({ length: n }, (_, i) => ({
      account_id: accountId,
      field_id: field.svc_id,
      svc_id: newId('efo'),
      value:
        spec.name === 'GL Account'
          ? `${6000 + i * 10} ${spec.words[i % spec.words.length]}`
          : `${spec.words[i % spec.words.length]}${i >= spec.words.length ? ` ${Math.floor(i / spec.words.length) + 1}` : ''}`,
      is_disabled: 0,
      remote_id: `${spec.remote}-${tag}-${i + 1}`,
      value_id: null,
      created_at: now + i,
      updated_at: now + i,
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await values
        .insertInto('field_values')
        .values(rows.slice(i, i + 1000))
        .execute();
    out.push({
      svc_id: field.svc_id,
      name: field.name,
      remote_id: field.remote_id ?? spec.remote,
      values: rows.map((r) => ({
        svc_field_id: field.svc_id,
        remote_field_id: field.remote_id,
        svc_field_value_id: r.svc_id,
        remote_field_value_id: r.remote_id,
        field_name: field.name,
        field_value_name: r.value,
      })),
    });
  }
  return out;
}

/** `svc seed --account <id> --records N --values N`: demo data of every record type and review state. */
export async function seed(db: Db, args: string[], out: (line: string) => void): Promise<void> {
  const { values: opts } = parseArgs({
    args,
    options: { account: { type: 'string' }, records: { type: 'string' }, values: { type: 'string' } },
    strict: true,
  });
  if (!opts.account) throw new CliUsageError('--account is required');
  const accountId = opts.account;
  const recordCount = count(opts.records, 'records', 1000);
  const valueCount = count(opts.values, 'values', 100);
  const started = Date.now();
  const now = nowMicros();

  const fields = await db.kysely.transaction().execute(async (trx) => {
    await authRepository.ensureAccount(trx, accountId, randomBytes(32).toString('base64'), now);
    return ensureFields(trx, accountId, valueCount, now);
  });

  const random = mulberry32(recordCount * 31 + valueCount);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const users = Array.from({ length: 40 }, (_, i) => ({
    id: `cuuser_${String(i + 1).padStart(6, '0')}`,
    email: `${FIRST[i % FIRST.length]!.toLowerCase()}.${LAST[(i * 7) % LAST.length]!.toLowerCase()}@example.invalid`,
    first_name: FIRST[i % FIRST.length]!,
    last_name: LAST[(i * 7) % LAST.length]!,
    role: ROLES[i % ROLES.length]!,
    status: i % 13 === 12 ? 'DISABLED' : 'ACTIVE',
    department_name: FIELDS[1]!.words[i % FIELDS[1]!.words.length]!,
  }));
  const vendors = VENDORS.map((name, i) => ({
    id: `vendor_${String(i + 1).padStart(6, '0')}`,
    name,
    contact_name: i % 3 === 0 ? `${FIRST[i % FIRST.length]} ${LAST[i % LAST.length]}` : null,
    email: i % 2 === 0 ? `billing@${name.toLowerCase().replace(/[^a-z]/g, '')}.example.invalid` : null,
    phone: null,
    website: `https://${name.toLowerCase().replace(/[^a-z]/g, '')}.example.invalid/`,
  }));
  const [gl, department, location, klass] = fields;
  const byType: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  const yearAgo = now - 365 * 24 * 3600 * 1_000_000;

  const makeRow = (n: number, updatedAt: number): StoredRecord => {
    const type: RecordType = RECORD_TYPES[n % RECORD_TYPES.length]!;
    // Every type meets every review state within the first 76 records.
    const status: ReviewStatus = REVIEW_STATUSES[(n + Math.floor(n / RECORD_TYPES.length)) % REVIEW_STATUSES.length]!;
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
      const coding = [gl, department, location, klass]
        .filter((f, k): f is SeedField => f !== undefined && f.values.length > 0 && (k < 2 || random() < 0.4))
        .map((f) => pick(f.values));
      return { amount: share, memo: parts > 1 ? `Part ${i + 1} of ${parts}` : null, fieldValues: coding };
    });
    // Tiny amounts split into more parts than minor units: book them as one line.
    const economic = lines.every((l) => l.amount > 0) ? lines : [{ ...lines[0]!, amount, memo: null }];
    const postedAt = yearAgo + Math.floor(random() * 365 * 24 * 3600) * 1_000_000;
    const isBill = sourceTypeOf(type) === 'BILL';
    const exported = status === 'EXPORTED';
    const failed = status === 'REVIEW' && random() < 0.1;
    const last: LastExportResult | null = exported
      ? {
          status: 'SUCCESS',
          reference_id: `erp_${n}`,
          deep_link_url: `https://erp.example.invalid/txn/${n}`,
          error_message: null,
          reported_at: updatedAt,
        }
      : failed
        ? {
            status: 'FAILURE',
            reference_id: null,
            deep_link_url: null,
            error_message: 'Invalid GL account',
            reported_at: updatedAt,
          }
        : null;
    byType[type] = (byType[type] ?? 0) + 1;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    return {
      account_id: accountId,
      id: newId('accr'),
      type,
      source_type: sourceTypeOf(type),
      source_id: `${isBill ? 'bill' : sourceTypeOf(type) === 'CARD' ? 'expense' : 'reimbursement'}_${String(n + 1).padStart(9, '0')}`,
      review_status: status,
      currency,
      amount_minor: amount,
      original_currency: currency,
      original_amount_minor: amount,
      posted_at: postedAt,
      erp_posting_date: postedAt,
      due_at: isBill ? postedAt + 30 * 24 * 3600 * 1_000_000 : null,
      invoice_number: isBill ? `INV-${String(n + 1).padStart(7, '0')}` : null,
      memo: random() < 0.5 ? `${pick(VENDORS)} ${type.toLowerCase().replace(/_/g, ' ')}` : null,
      line_items_json: JSON.stringify(lineItemsOf(buildLineItems(type, amount, amount, economic), currency, currency)),
      user_json: isBill && random() < 0.5 ? null : JSON.stringify(pick(users)),
      vendor_json: sourceTypeOf(type) === 'REIMBURSEMENT' && random() < 0.5 ? null : JSON.stringify(pick(vendors)),
      receipts_json:
        random() < 0.6
          ? JSON.stringify([
              { id: `receipt_${n + 1}`, download_uris: [`https://files.example.invalid/receipt_${n + 1}.pdf`] },
            ])
          : '[]',
      last_export_json: last === null ? null : JSON.stringify(last),
      version: 1 + REVIEW_STATUSES.indexOf(status) + (failed ? 3 : 0),
      created_at: updatedAt,
      updated_at: updatedAt,
    };
  };

  // Large transactions through the record clock, so seeded records keep the polling order like any write.
  for (let done = 0; done < recordCount; done += BATCH) {
    const size = Math.min(BATCH, recordCount - done);
    await db.kysely.transaction().execute(async (trx) => {
      const last = await recordClock.lock(trx, accountId);
      const first = await recordClock.advance(trx, accountId, last, size);
      const rows = Array.from({ length: size }, (_, i) => makeRow(done + i, first + i));
      await accountingRepository.insertMany(trx, rows);
      const deltas = new CountDeltas();
      for (const row of rows) deltas.add(row.source_type, row.review_status, 1);
      await accountingRepository.adjustCounts(trx, accountId, deltas);
    });
  }

  // A bulk load leaves PostgreSQL without statistics until autovacuum (if on) catches up.
  await refreshStatistics(db);

  out(
    JSON.stringify({
      account_id: accountId,
      fields: fields.map((f) => ({ svc_id: f.svc_id, name: f.name, remote_id: f.remote_id, values: f.values.length })),
      values: valueCount,
      records: recordCount,
      records_by_type: byType,
      records_by_review_status: byStatus,
      seconds: (Date.now() - started) / 1000,
    }),
  );
}
