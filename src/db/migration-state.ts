import { sql } from 'kysely';
import type { Db } from './database.js';
import { MIGRATIONS } from './migrate.js';

/**
 * Whether some migration has not run yet, read without the migrator's lock. Kysely's migrator takes a
 * session-level advisory lock on PostgreSQL, which PgBouncer in transaction mode cannot hold (the lock, the
 * migration and the unlock may each run on another server connection, and the lock outlives them): a server
 * started through such a pool skips the migrator when nothing is pending, and `svc migrate` runs the migrations
 * over a direct connection (docs/operations.md). Any failure to read counts as pending: the migrator then says
 * what is wrong.
 */
export async function migrationsPending(db: Db): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db.direct);
    const applied = new Set(rows.map((r) => r.name));
    return Object.keys(MIGRATIONS).some((name) => !applied.has(name));
  } catch {
    return true;
  }
}
