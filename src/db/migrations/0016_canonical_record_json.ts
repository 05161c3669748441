import type { Kysely } from 'kysely';
import { dialectOf, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * A record's lines, user, vendor and receipts are stored as JSON text in the answer's form and spliced as they are
 * into pages of records, which are written as text, not by the route's serializer. The serializer writes an
 * object's required members first, then its optional ones; stored text was written in other orders (a line's
 * billing_amount after original_amount; a user and a vendor in the order their sender wrote them). From this
 * release the service stores them in the serializer's order (record.shape.ts, storedForm); this rewrites the rows
 * stored before, so that a page's bytes are what the serializer writes (test/prewritten.test.ts). Only the order of
 * members changes: no value does.
 *
 * The orders are this migration's own copy (a migration that has run does the same on every later install).
 * It reads every record once, in batches of 500, and writes the rows whose text changes: time in proportion to the
 * number of records (the release notes of this release say so: plan for it on a large database). PostgreSQL runs it
 * in the migration's transaction; SQLite in one transaction per batch.
 */

type Json = Record<string, unknown>;

const isJson = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `value`'s members in `order` (those it has), then any others it has, as they were. */
function ordered(
  value: unknown,
  order: readonly string[],
  inner: Record<string, (v: unknown) => unknown> = {},
): unknown {
  if (!isJson(value)) return value;
  const source = value;
  const out: Json = {};
  for (const key of [...order, ...Object.keys(source).filter((k) => !order.includes(k))]) {
    if (Object.prototype.hasOwnProperty.call(source, key))
      out[key] = inner[key] ? inner[key](source[key]) : source[key];
  }
  return out;
}

const money = (v: unknown) => ordered(v, ['amount', 'currency']);
const coding = (v: unknown) =>
  ordered(v, [
    'svc_field_id',
    'remote_field_id',
    'svc_field_value_id',
    'remote_field_value_id',
    'field_name',
    'field_value_name',
    'type',
  ]);
const line = (v: unknown) =>
  ordered(
    v,
    ['id', 'type', 'amount', 'original_amount', 'memo', 'accounting_field_values', 'amortization', 'billing_amount'],
    {
      amount: money,
      original_amount: money,
      billing_amount: money,
      accounting_field_values: (list) => (Array.isArray(list) ? list.map(coding) : list),
    },
  );
const USER = [
  'id',
  'email',
  'first_name',
  'last_name',
  'role',
  'status',
  'account_id',
  'department_id',
  'department_name',
  'location_id',
  'location_name',
  'manager_id',
  'manager_first_name',
  'manager_last_name',
  'manager_title_id',
  'manager_title_name',
  'title_id',
  'title_name',
];
const VENDOR = ['id', 'name', 'contact_name', 'email', 'phone', 'website'];
const RECEIPT = ['id', 'download_uris'];

const rewrite = (text: string | null, form: (value: unknown) => unknown): string | null =>
  text === null ? null : JSON.stringify(form(JSON.parse(text)));
const each = (form: (v: unknown) => unknown) => (value: unknown) => (Array.isArray(value) ? value.map(form) : value);

interface Row {
  account_id: string;
  id: string;
  line_items_json: string;
  user_json: string | null;
  vendor_json: string | null;
  receipts_json: string | null;
}

export async function up(db: Kysely<any>): Promise<void> {
  let after: { account_id: string; id: string } | null = null;
  for (;;) {
    const from: { account_id: string; id: string } | null = after;
    const rows: Row[] = await db
      .selectFrom('accounting_record_details')
      .select(['account_id', 'id', 'line_items_json', 'user_json', 'vendor_json', 'receipts_json'])
      .$if(from !== null, (q) =>
        q.where((eb) =>
          eb.or([
            eb('account_id', '>', from!.account_id),
            eb.and([eb('account_id', '=', from!.account_id), eb('id', '>', from!.id)]),
          ]),
        ),
      )
      .orderBy('account_id')
      .orderBy('id')
      .limit(500)
      .execute();
    if (rows.length === 0) return;
    const changed: Row[] = [];
    for (const row of rows) {
      const next = {
        line_items_json: rewrite(row.line_items_json, each(line))!,
        user_json: rewrite(row.user_json, (v) => ordered(v, USER)),
        vendor_json: rewrite(row.vendor_json, (v) => ordered(v, VENDOR)),
        receipts_json: rewrite(
          row.receipts_json,
          each((v) => ordered(v, RECEIPT)),
        ),
      };
      if (
        next.line_items_json === row.line_items_json &&
        next.user_json === row.user_json &&
        next.vendor_json === row.vendor_json &&
        next.receipts_json === row.receipts_json
      ) {
        continue;
      }
      changed.push({ ...row, ...next });
    }
    const write = async (ex: Kysely<any>) => {
      for (const row of changed) {
        const { account_id, id, ...next } = row;
        await ex
          .updateTable('accounting_record_details')
          .set(next)
          .where('account_id', '=', account_id)
          .where('id', '=', id)
          .execute();
      }
    };
    if (dialectOf(db) === 'sqlite') await db.transaction().execute(write);
    else await write(db);
    const last = rows.at(-1)!;
    after = { account_id: last.account_id, id: last.id };
  }
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_record_details'],
  note: "Rewrites every record's stored JSON in the serializer's member order (same content), in one pass over all records: on SQLite writers wait for it; on PostgreSQL records written meanwhile keep the old order.",
};
