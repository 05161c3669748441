import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { autovacuumRuns, refreshStale } from '../../src/speed/statistics.js';
import { describeEachDialect } from '../support/context.js';
import { svc } from '../support/processes.js';
import { until } from '../support/wait.js';

/**
 * PostgreSQL's statistics (src/speed/statistics.ts): autovacuum's, with migration 0018's thresholds on the tables
 * that grow by bulk; a bulk load (`svc seed`) analyses what it loaded; the service's own refresh, only where
 * autovacuum is off, analyses a stale table once. SQLite keeps none.
 */
describeEachDialect('planner statistics', (t) => {
  const analysed = async (table: string) =>
    (
      await sql<{ analysed: boolean; live: number }>`
        select coalesce(last_analyze, last_autoanalyze) is not null as analysed, n_live_tup + n_mod_since_analyze as live
        from pg_stat_user_tables where relname = ${table}`.execute(t.ctx.db.direct)
    ).rows[0];
  /** The writers' sessions report their counts when they next commit or go idle (up to 10 s later): waited for. */
  const counted = (table: string, rows: number) =>
    until(`${rows} rows of ${table} counted in pg_stat_user_tables`, async () => {
      return Number((await analysed(table))?.live ?? 0) >= rows;
    });

  it('gives the tables that grow by bulk their autovacuum thresholds (PostgreSQL), and SQLite nothing', async () => {
    if (t.dialect === 'sqlite') {
      expect(await autovacuumRuns(t.ctx.db)).toBe(true);
      return;
    }
    const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`
      select relname, reloptions from pg_class
      where relname in ('field_values', 'accounting_records', 'webhook_deliveries', 'fields') and relkind = 'r'
      order by relname`.execute(t.ctx.db.direct);
    const thresholds = [
      'autovacuum_analyze_scale_factor=0.02',
      'autovacuum_vacuum_scale_factor=0.05',
      'autovacuum_vacuum_insert_scale_factor=0.05',
    ];
    expect(rows).toEqual([
      { relname: 'accounting_records', reloptions: thresholds },
      { relname: 'field_values', reloptions: thresholds },
      { relname: 'fields', reloptions: null },
      { relname: 'webhook_deliveries', reloptions: thresholds },
    ]);
    const setting = (await sql<{ autovacuum: string }>`show autovacuum`.execute(t.ctx.db.direct)).rows[0]!.autovacuum;
    expect(await autovacuumRuns(t.ctx.db)).toBe(setting === 'on');
  });

  it('refreshes a PostgreSQL table that has no statistics, once, and leaves SQLite alone', async () => {
    // Autovacuum (on in CI) could analyse the table first, whenever its naptime falls: off for this table, the
    // case the refresh is there for.
    if (t.dialect === 'postgres') {
      await sql`alter table field_values set (autovacuum_enabled = false)`.execute(t.ctx.db.direct);
    }
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField({ name: 'GL' });
    for (let b = 0; b < 2; b++) {
      await api.newValues(
        fieldId,
        Array.from({ length: 1000 }, (_, i) => ({ value: `V${b}-${i}` })),
      );
    }
    if (t.dialect === 'sqlite') {
      expect(await refreshStale(t.ctx.db)).toEqual([]);
      return;
    }
    await counted('field_values', 2000);
    expect(await analysed('field_values')).toEqual({ analysed: false, live: expect.any(Number) });
    expect(await refreshStale(t.ctx.db)).toContain('field_values');
    expect((await analysed('field_values'))?.analysed).toBe(true);
    expect(await refreshStale(t.ctx.db)).not.toContain('field_values');
  });

  it('analyses what `svc seed` loaded, before it answers', async () => {
    const seeded = await svc(['seed', '--account', 'stats', '--records', '1500', '--values', '20'], {
      DATABASE_URL: t.ctx.database.url,
    });
    expect(seeded.code).toBe(0);
    if (t.dialect === 'sqlite') return;
    expect((await analysed('accounting_records'))?.analysed).toBe(true);
    expect((await analysed('accounting_record_details'))?.analysed).toBe(true);
  });
});
