import { sql, type Kysely } from 'kysely';
import type { MigrationPlan } from './helpers.js';

const BATCH = 1000;

interface OldLine {
  id: string;
  type: string;
  amount: number | { amount: number; currency: string };
  original_amount: number | { amount: number; currency: string } | null;
  memo: string | null;
  accounting_field_values: unknown[];
}

// The minor-unit exponents as this migration was written (ISO 4217 in 2026), kept here rather than read from the
// live currency table: a later change there must not change what this migration did. Two decimals otherwise.
const EXPONENTS: Readonly<Record<string, number>> = {
  ...Object.fromEntries(
    'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF'.split(' ').map((c) => [c, 0]),
  ),
  ...Object.fromEntries('BHD IQD JOD KWD LYD OMR TND'.split(' ').map((c) => [c, 3])),
  ...Object.fromEntries('CLF UYW'.split(' ').map((c) => [c, 4])),
};

const major = (minor: number, currency: string) => ({ amount: minor / 10 ** (EXPONENTS[currency] ?? 2), currency });

/**
 * Line items were stored with amounts in integer minor units and turned into money objects on every read;
 * they are now stored as answered ({ amount, currency } in major units, members in the answer's order), so
 * that a page of records splices the stored text. Rewrites the rows stored the old way, a batch at a time.
 * Every instance of the service must be stopped before it runs: an older build would go on writing (and
 * reading) line items in minor units.
 */
export async function up(db: Kysely<any>): Promise<void> {
  let after: { account_id: string; id: string } | null = null;
  for (;;) {
    let query = db
      .selectFrom('accounting_records')
      .select(['account_id', 'id', 'currency', 'original_currency', 'line_items_json'])
      .orderBy('account_id')
      .orderBy('id')
      .limit(BATCH);
    if (after) {
      const { account_id, id } = after;
      query = query.where((eb) =>
        eb.or([eb('account_id', '>', account_id), eb.and([eb('account_id', '=', account_id), eb('id', '>', id)])]),
      );
    }
    const rows: {
      account_id: string;
      id: string;
      currency: string;
      original_currency: string | null;
      line_items_json: string;
    }[] = await query.execute();
    if (rows.length === 0) return;
    const changed: { account_id: string; id: string; line_items_json: string }[] = [];
    for (const row of rows) {
      const lines: OldLine[] = JSON.parse(row.line_items_json);
      if (!lines.some((l) => typeof l.amount === 'number')) continue;
      const answered = lines.map((l) => ({
        id: l.id,
        type: l.type,
        amount: typeof l.amount === 'number' ? major(l.amount, row.currency) : l.amount,
        original_amount:
          typeof l.original_amount === 'number'
            ? row.original_currency === null
              ? null
              : major(l.original_amount, row.original_currency)
            : l.original_amount,
        memo: l.memo,
        accounting_field_values: l.accounting_field_values,
      }));
      changed.push({ account_id: row.account_id, id: row.id, line_items_json: JSON.stringify(answered) });
    }
    // One statement per batch: on SQLite the migration runs outside a transaction (Kysely runs SQLite
    // migrations without one), so a statement per row would be a synchronous commit per row.
    if (changed.length > 0) {
      await sql`
        with v(account_id, id, line_items_json) as (
          values ${sql.join(changed.map((c) => sql`(${c.account_id}, ${c.id}, ${c.line_items_json})`))}
        )
        update accounting_records set line_items_json = v.line_items_json
        from v
        where accounting_records.account_id = v.account_id and accounting_records.id = v.id`.execute(db);
    }
    after = rows[rows.length - 1]!;
  }
}

export async function down(): Promise<void> {
  throw new Error('svc migrations are forward-only');
}

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_records'],
  note: "Rewrites every record's stored line items into the form the API answers, in one pass over all records: on SQLite writers wait for it; on PostgreSQL records the release before it writes meanwhile keep the old form.",
};
