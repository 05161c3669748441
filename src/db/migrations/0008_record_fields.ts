import { sql, type Kysely, type RawBuilder } from 'kysely';
import { allOrNothing, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * The fields of the reference record that svc did not answer (docs/accounting.md, "The record"):
 * - accounting_record_details gains `status` (the state of the source activity at ingestion), and
 *   `billing_currency`/`billing_amount_minor` (what the billing currency was charged; both null when that is the
 *   record's amount, as for every record written before: none had a conversion);
 * - the stored line items gain `billing_amount` on economic lines (their amount), `amortization: null` on every
 *   line and `type: "IDENTIFIER"` on every coding; the stored user gains the record's `account_id`.
 * Existing records get their type's default status. Every details row is rewritten, a batch at a time.
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 * Every instance must be stopped before it runs: an older build writes line items and users without the new members
 * and records without a status.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  // '' only until the rows below are filled: every insert names the column.
  await db.schema
    .alterTable('accounting_record_details')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('accounting_record_details').addColumn('billing_currency', 'text').execute();
  await db.schema.alterTable('accounting_record_details').addColumn('billing_amount_minor', 'bigint').execute();
  await fillDetails(db);
}

// As the service had them when this migration was written (a later change there must not change what it did):
// each type's default source status, and the side that carries each type's economic impact.
const MOVEMENTS = (
  'CARD_EXPENSE_REPAYMENT CARD_PAYMENT CARD_PAYMENT_REFUND REWARD_REDEMPTION REIMBURSEMENT_EXPENSE_REPAYMENT ' +
  'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT_REVERSAL ' +
  'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_REFUND INVOICE_PAYMENT ' +
  'BILL_EXPENSE_PAYMENT BILL_EXPENSE_CARD_PAYMENT BILL_MONEY_MOVEMENT_PAYIN'
).split(' ');
const APPROVED = ['REIMBURSEMENT_EXPENSE_APPROVAL', 'REIMBURSEMENT_EXPENSE_POST'];
const defaultStatus = (type: string): string =>
  MOVEMENTS.includes(type) ? 'COMPLETED' : APPROVED.includes(type) ? 'APPROVED' : 'SUBMITTED';
const CREDIT_ECONOMIC = new Set(
  (
    'CARD_EXPENSE_REFUND CARD_EXPENSE_REPAYMENT CARD_PAYMENT REWARD_REDEMPTION REIMBURSEMENT_EXPENSE_REPAYMENT ' +
    'REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYOUT REIMBURSEMENT_EXPENSE_MONEY_MOVEMENT_PAYIN INVOICE ' +
    'BILL_EXPENSE_PAYMENT BILL_EXPENSE_CARD_PAYMENT BILL_MONEY_MOVEMENT_PAYIN'
  ).split(' '),
);
const BATCH = 1000;

type Money = { amount: number; currency: string };
interface Coding {
  svc_field_id: string;
  remote_field_id: string | null;
  svc_field_value_id: string;
  remote_field_value_id: string | null;
  field_name: string;
  field_value_name: string;
  type?: string;
}
interface Line {
  id: string;
  type: string;
  amount: Money;
  original_amount: Money | null;
  billing_amount?: Money;
  memo: string | null;
  accounting_field_values: Coding[];
}

/** A stored line in the new form, members in the answer's order (what the service writes). */
const lineNow = (line: Line, economic: string) => ({
  id: line.id,
  type: line.type,
  amount: line.amount,
  original_amount: line.original_amount,
  ...(line.type === economic ? { billing_amount: line.billing_amount ?? line.amount } : {}),
  memo: line.memo,
  accounting_field_values: line.accounting_field_values.map((c) => ({
    svc_field_id: c.svc_field_id,
    remote_field_id: c.remote_field_id,
    svc_field_value_id: c.svc_field_value_id,
    remote_field_value_id: c.remote_field_value_id,
    field_name: c.field_name,
    field_value_name: c.field_value_name,
    type: c.type ?? 'IDENTIFIER',
  })),
  amortization: null,
});

interface Row {
  account_id: string;
  id: string;
  type: string;
  status: string;
  line_items_json: string;
  user_json: string | null;
}

async function fillDetails(db: Kysely<any>): Promise<void> {
  let after: { account_id: string; id: string } | null = null;
  for (;;) {
    // A row-value comparison: one range of the primary key on both dialects.
    const position: RawBuilder<unknown> = after
      ? sql`and (d.account_id, d.id) > (${after.account_id}, ${after.id})`
      : sql``;
    const { rows }: { rows: Row[] } = await sql<Row>`
      select d.account_id, d.id, r.type, d.status, d.line_items_json, d.user_json
      from accounting_record_details d
      join accounting_records r on r.account_id = d.account_id and r.id = d.id
      where 1 = 1 ${position}
      order by d.account_id, d.id
      limit ${BATCH}`.execute(db);
    if (rows.length === 0) return;
    const values = rows.map((row) => {
      const economic = CREDIT_ECONOMIC.has(row.type) ? 'CREDIT' : 'DEBIT';
      const lines: Line[] = JSON.parse(row.line_items_json);
      const user: Record<string, unknown> | null = row.user_json === null ? null : JSON.parse(row.user_json);
      const status = row.status === '' ? defaultStatus(row.type) : row.status;
      const userJson =
        user === null ? null : JSON.stringify({ ...user, account_id: user.account_id ?? row.account_id });
      return sql`(${row.account_id}, ${row.id}, ${status}, ${JSON.stringify(lines.map((l) => lineNow(l, economic)))}, ${userJson})`;
    });
    await sql`
      with v(account_id, id, status, line_items_json, user_json) as (values ${sql.join(values)})
      update accounting_record_details
      set status = v.status, line_items_json = v.line_items_json, user_json = v.user_json
      from v
      where accounting_record_details.account_id = v.account_id and accounting_record_details.id = v.id`.execute(db);
    after = rows[rows.length - 1]!;
  }
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_record_details', 'accounting_records'],
  note: "Adds a record's status and billing amount and rewrites every record's stored line items and user in their new form, in one pass over all records: writers wait for it on SQLite, and records the release before it writes meanwhile on PostgreSQL keep the old form.",
};
