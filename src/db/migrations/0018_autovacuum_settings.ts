import { sql, type Kysely } from 'kysely';
import { dialectOf, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * PostgreSQL's planner statistics and visibility maps are autovacuum's to keep (issue 29), with settings for the
 * tables that grow by bulk (values, records and their details, events, deliveries, the audit log): analysed after 2%
 * of their rows changed rather than 10%, vacuumed after 5% of new rows (PostgreSQL 13+: the visibility map that
 * index-only counts need, right after a load) or 5% of changed ones. `svc seed` analyses what it loads itself
 * (src/speed/statistics.ts). SQLite has no statistics to keep: its statements are written so that their plans do not
 * depend on them. Storage parameters only: nothing is rewritten.
 */
const BULK_TABLES = [
  'field_values',
  'accounting_records',
  'accounting_record_details',
  'accounting_record_events',
  'account_events',
  'webhook_deliveries',
  'webhook_attempts',
  'audit_events',
];

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  for (const table of BULK_TABLES) {
    await sql`alter table ${sql.table(table)} set (
      autovacuum_analyze_scale_factor = 0.02,
      autovacuum_vacuum_scale_factor = 0.05,
      autovacuum_vacuum_insert_scale_factor = 0.05
    )`.execute(db);
  }
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: 'PostgreSQL: sets autovacuum thresholds on the bulk tables (storage parameters; reads and writes go on). SQLite: nothing.',
};
