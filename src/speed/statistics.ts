import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { isOn } from './switches.js';

const EVERY_MS = 10 * 1000;

/**
 * PostgreSQL's planner statistics and visibility maps. They are autovacuum's to keep (migration 0018 sets its
 * per-table thresholds), and a bulk load analyses what it loaded (`afterBulkLoad`). Without statistics PostgreSQL
 * guesses a few rows per account and, for a 1,000,000-value field, sorted the whole field for each page instead of
 * walking the primary key; without a vacuum the visibility map stays empty and counts cannot use index-only scans.
 * SQLite needs none of this: its statements are written so that their plans do not depend on statistics.
 *
 * Only where the server runs without autovacuum (`autovacuum = off`, as on this project's machines) does the
 * service do its work (piece `statistics-refresh`): every ten seconds it vacuums and analyses each table whose
 * statistics are missing or more than 10% stale. Invariant: a table is refreshed once per change of a tenth of its
 * rows, never while another node vacuums it (skip_locked), and not at all where autovacuum runs
 * (test/speed/statistics.test.ts).
 */
export async function refreshStale(db: Db): Promise<string[]> {
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

/**
 * After a bulk load (`svc seed`): the database vacuumed and analysed at once, autovacuum or not. Every table, not
 * only those the cumulative statistics call stale: they reach pg_stat_user_tables a moment after the load's commits,
 * so a check made right after it can miss the tables just loaded.
 */
export async function afterBulkLoad(db: Db): Promise<void> {
  if (db.dialect === 'postgres') await sql`vacuum (analyze, skip_locked)`.execute(db.direct);
}

/** Whether this database leaves its statistics to autovacuum (always true of SQLite: nothing to keep). */
export async function autovacuumRuns(db: Db): Promise<boolean> {
  if (db.dialect !== 'postgres') return true;
  const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(db.direct);
  return rows[0]?.autovacuum === 'on';
}

/**
 * The ten-second refresh where autovacuum is off and the piece is on; nothing otherwise. `report` hears of each
 * refresh (the tables) and each failure.
 */
export function startStatisticsRefresh(
  db: Db,
  report: { refreshed(tables: string[]): void; failed(error: unknown): void },
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const refresh = async () => {
    if (running) return; // a vacuum of a large table can outlast the interval
    running = true;
    try {
      const tables = await refreshStale(db);
      if (tables.length > 0) report.refreshed(tables);
    } catch (error) {
      report.failed(error);
    } finally {
      running = false;
    }
  };
  if (db.dialect === 'postgres' && isOn('statistics-refresh')) {
    void autovacuumRuns(db).then(
      (runs) => {
        if (runs || stopped) return;
        void refresh();
        timer = setInterval(() => void refresh(), EVERY_MS);
        timer.unref();
      },
      (error: unknown) => report.failed(error),
    );
  }
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
