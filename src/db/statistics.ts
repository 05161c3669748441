import { sql } from 'kysely';
import type { Db } from './dialect.js';

/**
 * Keeps PostgreSQL's planner statistics for the service's tables fresh when autovacuum does not (it can be
 * turned off, and it lags behind a bulk load). Without statistics PostgreSQL guesses a few rows per account
 * and, for a 1,000,000-value field, sorted the whole field for each page (400 ms) instead of walking the
 * primary key. A table is analysed when it has never been, or when more than 10% of its rows (at least
 * 1000) changed since. SQLite needs nothing here: its queries are written so that the plan does not depend
 * on statistics (see the repositories).
 */
export async function refreshStatistics(db: Db): Promise<string[]> {
  if (db.dialect !== 'postgres') return [];
  const stale = await sql<{ relname: string }>`
    select relname from pg_stat_user_tables
    where schemaname = current_schema()
      and n_live_tup + n_mod_since_analyze >= 1000
      and (coalesce(last_analyze, last_autoanalyze) is null or n_mod_since_analyze > greatest(1000, n_live_tup / 10))`.execute(db.kysely);
  const tables = stale.rows.map((r) => r.relname);
  for (const table of tables) await sql`analyze ${sql.table(table)}`.execute(db.kysely);
  return tables;
}
