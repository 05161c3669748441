import { sql, type Expression, type SqlBool } from 'kysely';

/**
 * Keyset condition "the row comes after `values`" for an ascending order on `columns`:
 * (a > x) OR (a = x AND b > y) ... Written out rather than as a row-value comparison so that both
 * dialects use the index on the leading column for the range.
 */
export function after(columns: readonly string[], values: readonly (string | number)[]): Expression<SqlBool> {
  const parts = columns.map((column, i) => {
    const equal = columns.slice(0, i).map((c, j) => sql`${sql.ref(c)} = ${values[j]}`);
    return sql.join([...equal, sql`${sql.ref(column)} > ${values[i]}`], sql` and `);
  });
  return sql<SqlBool>`(${sql.join(
    parts.map((p) => sql`(${p})`),
    sql` or `,
  )})`;
}

/** Splits a page fetched with limit + 1 rows into the page and whether more follow. */
export function pageOf<T>(rows: T[], limit: number): { items: T[]; hasMore: boolean } {
  return rows.length > limit ? { items: rows.slice(0, limit), hasMore: true } : { items: rows, hasMore: false };
}
