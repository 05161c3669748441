import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { refreshStatistics } from '../../src/db/statistics.js';
import { describeEachDialect } from '../support/context.js';
import { until } from '../support/wait.js';

describeEachDialect('planner statistics', (t) => {
  it('analyses a PostgreSQL table that has none, once, and leaves SQLite alone', async () => {
    // Autovacuum (on in CI) could analyse the table first, whenever its naptime falls: off for this table, the
    // case refreshStatistics is there for.
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
      expect(await refreshStatistics(t.ctx.db)).toEqual([]);
      return;
    }
    const lastAnalyze = async () =>
      (
        await sql<{ analysed: boolean; live: number }>`
          select coalesce(last_analyze, last_autoanalyze) is not null as analysed, n_live_tup + n_mod_since_analyze as live
          from pg_stat_user_tables where relname = 'field_values'`.execute(t.ctx.db.direct)
      ).rows[0];
    // The writers' sessions report their counts when they next commit or go idle (up to 10 s later): wait for them.
    await until(
      '2000 rows counted in pg_stat_user_tables',
      async () => Number((await lastAnalyze())?.live ?? 0) >= 2000,
    );
    expect(await lastAnalyze()).toEqual({ analysed: false, live: expect.any(Number) });
    expect(await refreshStatistics(t.ctx.db)).toContain('field_values');
    expect((await lastAnalyze())?.analysed).toBe(true);
    expect(await refreshStatistics(t.ctx.db)).not.toContain('field_values');
  });
});
