import { sql } from 'kysely';
import type { Db } from './database.js';

/**
 * Does autovacuum's work for the service's tables when autovacuum does not (it can be turned off, and it
 * lags behind a bulk load). Without statistics PostgreSQL guesses a few rows per account and, for a
 * 1,000,000-value field, sorted the whole field for each page instead of walking the primary key;
 * without a vacuum the visibility map stays empty, so counts cannot use index-only scans (a half-range
 * total_count was several times slower), and updated rows leave dead tuples behind. A table is vacuumed
 * and analysed when it never was, or when more than 10% of its rows (at least 1000) changed since. SQLite
 * needs nothing here: its queries are written so that the plan does not depend on statistics.
 */
export async function refreshStatistics(db: Db): Promise<string[]> {
  if (db.dialect !== 'postgres') return [];
  const stale = await sql<{ relname: string }>`
    select relname from pg_stat_user_tables
    where schemaname = current_schema()
      and n_live_tup + n_mod_since_analyze >= 1000
      and (coalesce(last_analyze, last_autoanalyze) is null or n_mod_since_analyze > greatest(1000, n_live_tup / 10))`.execute(
    db.direct,
  );
  const tables = stale.rows.map((r) => r.relname);
  // VACUUM cannot run inside a transaction; through the pool each statement runs on its own. Every node runs this
  // (WORKERS: one worker of each): a table another node is vacuuming is skipped, not waited for.
  for (const table of tables) await sql`vacuum (analyze, skip_locked) ${sql.table(table)}`.execute(db.direct);
  return tables;
}
