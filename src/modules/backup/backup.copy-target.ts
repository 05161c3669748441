import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { BackupError } from './backup.manifest.js';

/** Kysely's own bookkeeping: the target's migrator writes it. */
export const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * Refuses a copy's target unless it holds nothing but svc's own schema: no table at all, or only tables the source
 * has (and the migrator's), migrations applied that are the source's first ones, and not one row outside the
 * migrator's tables. That is what a copy that failed part-way leaves (its migrations ran before the transaction of
 * its rows, which rolled back): copying again goes on from there, and anything else stays refused as not empty.
 * `present` are the target's tables, `source` the source's tables and migrations (in name order).
 */
export async function targetMustHoldNoData(
  into: Executor,
  present: string[],
  source: { tables: string[]; migrations: string[] },
  name: string,
): Promise<void> {
  if (present.length === 0) return;
  const refuse = (what: string): never => {
    throw new BackupError(
      `${name} is not empty (${present.length} tables; ${what}): a copy writes only into an empty database, or one ` +
        "a failed copy left (svc's tables without a row)",
    );
  };
  const svcTables = new Set([...source.tables, ...MIGRATOR_TABLES]);
  const foreign = present.filter((table) => !svcTables.has(table));
  if (foreign.length > 0) refuse(`tables the source does not have: ${foreign.join(', ')}`);
  if (!present.includes('kysely_migration')) refuse("svc's tables without its migrations' record");
  const applied = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(into)).rows.map(
    (r) => r.name,
  );
  const beyond = applied.filter((migration, i) => source.migrations[i] !== migration);
  if (beyond.length > 0) refuse(`migrations other than the source's first ones: ${beyond.join(', ')}`);
  const withRows: string[] = [];
  for (const table of present.filter((t) => !MIGRATOR_TABLES.has(t))) {
    const { rows } = await sql`select 1 from ${sql.table(table)} limit 1`.execute(into);
    if (rows.length > 0) withRows.push(table);
  }
  if (withRows.length > 0) refuse(`rows in ${withRows.join(', ')}`);
}
