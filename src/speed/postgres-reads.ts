import type PgModule from 'pg';
import type { DirectRead } from '../db/database.js';
import { isOn } from './switches.js';

/**
 * Piece `pg-direct-reads`: a prepared query's SELECT on PostgreSQL's `Db.direct` (outside any transaction) runs as
 * `pool.query`, at once, instead of through Kysely's connection hand-over (acquire, run, release: several promises a
 * statement). The same pool, clients and type parsers, so the same rows; a statement outside a transaction is its own
 * snapshot either way. Invariant: the rows are those Kysely answers (test/speed/prepared.test.ts).
 */
export function pgDirectReads(pool: PgModule.Pool): DirectRead | undefined {
  if (!isOn('pg-direct-reads')) return undefined;
  return async <R>(sql: string, parameters: readonly unknown[]) => {
    const result = await pool.query(sql, [...parameters]);
    const rows: R[] = result.rows;
    return { rows };
  };
}
