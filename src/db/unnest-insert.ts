import { sql } from 'kysely';
import type { Executor } from './database.js';

/** The PostgreSQL element types a batch insert's columns may take (written into the SQL: a fixed set). */
export type PgColumnType = 'text' | 'integer' | 'bigint';

/**
 * Rows inserted in one statement on PostgreSQL, each column one array parameter (`unnest`): one round trip and as
 * many parameters as columns, whatever the batch. `columns` lists the rows' columns with their types, in the order
 * the statement names them.
 */
export function unnestInsert<Row extends object>(
  ex: Executor,
  table: string,
  columns: readonly (readonly [keyof Row & string, PgColumnType])[],
  rows: readonly Row[],
): Promise<unknown> {
  const names = columns.map(([name]) => sql.ref(name));
  const arrays = columns.map(([name, type]) => sql`${rows.map((row) => row[name])}::${sql.raw(type)}[]`);
  return sql`insert into ${sql.table(table)} (${sql.join(names)}) select * from unnest(${sql.join(arrays)})`.execute(
    ex,
  );
}
