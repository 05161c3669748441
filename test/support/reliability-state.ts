import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import type { Db, Executor } from '../../src/db/database.js';
import { toMinor } from '../../src/modules/accounting/money.js';

/**
 * What the reliability suite reads back of the stored state: the invariants no sequence of requests may break
 * (through `integrityProblems` of reliability.ts, which reads them from one snapshot), and every business row of
 * some accounts, for "nothing changed" comparisons.
 */

/** The checks of `integrityProblems` over what `k` sees; [] when sound. */
export async function problemsIn(k: Executor): Promise<string[]> {
  const problems: string[] = [];
  if (k.dialect === 'sqlite') {
    // On a connection of its own: FTS5's check reads the index through the structure its connection cached last,
    // and on a long-lived connection reports the segments that other processes' writes have merged away since
    // as corruption (a new connection finds the same file sound).
    const { rows } = await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(k);
    const fresh = new SqliteDatabase(rows[0]!.file, { timeout: 0 });
    try {
      const check = fresh.pragma('integrity_check') as { integrity_check: string }[];
      if (check.map((r) => r.integrity_check).join() !== 'ok')
        problems.push(`integrity_check: ${JSON.stringify(check)}`);
      const fk = fresh.pragma('foreign_key_check') as unknown[];
      if (fk.length > 0) problems.push(`foreign_key_check: ${JSON.stringify(fk)}`);
    } finally {
      fresh.close();
    }
  }
  const orphans = await k
    .selectFrom('field_values as v')
    .leftJoin('fields as f', (j) => j.onRef('f.account_id', '=', 'v.account_id').onRef('f.svc_id', '=', 'v.field_id'))
    .where('f.svc_id', 'is', null)
    .select('v.svc_id')
    .execute();
  if (orphans.length > 0) problems.push(`orphan field values: ${orphans.map((o) => o.svc_id).join(', ')}`);

  const records = await k
    .selectFrom('accounting_records as r')
    .innerJoin('accounting_record_details as d', (j) =>
      j.onRef('d.account_id', '=', 'r.account_id').onRef('d.id', '=', 'r.id'),
    )
    .select(['r.account_id', 'r.id', 'r.currency', 'r.amount_minor', 'd.line_items_json', 'r.version', 'r.updated_at'])
    .execute();
  // One details row per record, both ways (the foreign key holds one way only).
  const counts = await Promise.all(
    (['accounting_records', 'accounting_record_details'] as const).map(async (table) =>
      Number(
        (
          await k
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ),
  );
  if (counts[0] !== records.length || counts[1] !== records.length) {
    problems.push(`records ${counts[0]}, details ${counts[1]}, records with details ${records.length}`);
  }
  const clocks = new Map(
    (await k.selectFrom('account_record_clocks').selectAll().execute()).map((c) => [c.account_id, c.last_updated_at]),
  );
  for (const r of records) {
    // Line items are stored as answered: { amount, currency } in major units.
    const lines = JSON.parse(r.line_items_json) as { type: string; amount: { amount: number; currency: string } }[];
    if (lines.some((l) => l.amount.currency !== r.currency)) problems.push(`line currency differs from record ${r.id}`);
    const minor = (money: { amount: number; currency: string }) => toMinor(money) as number;
    const sum = (side: string) => lines.filter((l) => l.type === side).reduce((s, l) => s + minor(l.amount), 0);
    if (sum('DEBIT') !== r.amount_minor || sum('CREDIT') !== r.amount_minor) problems.push(`unbalanced record ${r.id}`);
    if (r.version < 1) problems.push(`record ${r.id} has version ${r.version}`);
    if ((clocks.get(r.account_id) ?? -1) < r.updated_at)
      problems.push(`record clock of ${r.account_id} behind ${r.id}`);
  }
  // Every change of a record is an event with the version it produced, written in the change's transaction: the
  // versions of a record's events are exactly 1..version (every record here was written after migration 0006).
  const events = await k
    .selectFrom('accounting_record_events')
    .select(['account_id', 'record_id', 'version'])
    .orderBy('account_id')
    .orderBy('record_id')
    .orderBy('version')
    .execute();
  const versions = new Map<string, number[]>();
  for (const e of events) {
    const key = `${e.account_id}/${e.record_id}`;
    versions.set(key, [...(versions.get(key) ?? []), Number(e.version)]);
  }
  for (const r of records) {
    const seen = versions.get(`${r.account_id}/${r.id}`) ?? [];
    const expected = Array.from({ length: Number(r.version) }, (_, i) => i + 1);
    if (seen.join() !== expected.join()) {
      problems.push(`record ${r.id} at version ${r.version} has events for versions [${seen.join(', ')}]`);
    }
    versions.delete(`${r.account_id}/${r.id}`);
  }
  if (versions.size > 0) problems.push(`events of records that do not exist: ${[...versions.keys()].join(', ')}`);
  const unanswered = await k
    .selectFrom('idempotency_keys')
    .select('idempotency_key')
    .where('state', '=', 'DONE')
    .where('response_body', 'is', null)
    .execute();
  if (unanswered.length > 0) problems.push(`DONE idempotency keys without an answer: ${unanswered.length}`);
  return problems;
}

const BUSINESS_TABLES = [
  'fields',
  'field_values',
  'accounting_records',
  'accounting_record_details',
  'account_record_clocks',
  'accounting_record_events',
  'account_required_fields',
  'account_review_settings',
  'account_receipt_policies',
  'account_export_mappings',
  'integrations',
  'account_events',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'coding_rules',
  'coding_rule_versions',
  'coding_rule_line_values',
] as const;

/**
 * Every business row of `accountIds` (all tables, sorted), for "nothing changed" comparisons. On PostgreSQL in one
 * statement (each table's rows as one JSON array): the fuzzer reads it after every rejected input, and eighteen round
 * trips a check were two thirds of its time there. The two forms are compared only with themselves.
 */
export async function businessState(db: Db, accountIds: string[]): Promise<Record<string, unknown[]>> {
  const state: Record<string, unknown[]> = {};
  if (db.dialect === 'postgres') {
    const parts = BUSINESS_TABLES.map(
      (table) =>
        sql`select ${table}::text as t, (select coalesce(json_agg(x)::text, '[]') from ${sql.table(table)} x
          where x.account_id = any(${accountIds}::text[])) as rows`,
    );
    const { rows } = await sql<{ t: string; rows: string }>`${sql.join(parts, sql` union all `)}`.execute(db.direct);
    for (const r of rows) state[r.t] = (JSON.parse(r.rows) as unknown[]).map((row) => JSON.stringify(row)).sort();
    return state;
  }
  for (const table of BUSINESS_TABLES) {
    const rows = await db.direct.selectFrom(table).selectAll().where('account_id', 'in', accountIds).execute();
    state[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return state;
}
