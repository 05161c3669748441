import { sql } from 'kysely';
import type { TestContext } from './context.js';

/**
 * Where a statement's plan reads: EXPLAIN's text on PostgreSQL (told to prefer an index where one can serve: no
 * sequential scan, and with `indexScans` no bitmap scan either; `fresh` first refreshes `table`'s statistics and
 * visibility map, which an index-only scan needs), EXPLAIN QUERY PLAN's details on SQLite. `query` takes its
 * parameters as `?`.
 */
export async function planOf(
  ctx: TestContext,
  query: string,
  params: unknown[],
  { indexScans = false, fresh }: { indexScans?: boolean; fresh?: string } = {},
): Promise<string> {
  if (ctx.dialect === 'postgres' && fresh) await sql`vacuum analyze ${sql.table(fresh)}`.execute(ctx.db.direct);
  return ctx.db.direct.transaction().execute(async (tx) => {
    const parts = query.split('?');
    const statement = sql.join(
      parts.map((p, i) => (i < params.length ? sql`${sql.raw(p)}${params[i]}` : sql.raw(p))),
      sql``,
    );
    if (ctx.dialect === 'postgres') {
      await sql`set local enable_seqscan = off`.execute(tx);
      if (indexScans) await sql`set local enable_bitmapscan = off`.execute(tx);
      const { rows } = await sql<Record<string, string>>`explain ${statement}`.execute(tx);
      return rows.map((r) => Object.values(r).join(' ')).join('\n');
    }
    const { rows } = await sql<{ detail: string }>`explain query plan ${statement}`.execute(tx);
    return rows.map((r) => r.detail).join('\n');
  });
}
