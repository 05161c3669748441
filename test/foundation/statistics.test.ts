import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { refreshStatistics } from '../../src/db/statistics.js';
import { describeEachDialect } from '../support/context.js';

describeEachDialect('planner statistics', (t) => {
  it('analyses a PostgreSQL table that has none, once, and leaves SQLite alone', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const field = (await api.create('/v1/fields', { name: 'GL', group: 'ACCOUNTING' })).body;
    for (let b = 0; b < 2; b++) {
      const res = await api.create(`/v1/fields/${field.svc_id}/values`, {
        items: Array.from({ length: 1000 }, (_, i) => ({ value: `V${b}-${i}` })),
      });
      expect(res.status).toBe(200);
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
    // The cumulative statistics reach pg_stat_user_tables within a second of the writes.
    for (let i = 0; i < 40 && Number((await lastAnalyze())?.live ?? 0) < 2000; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(await lastAnalyze()).toEqual({ analysed: false, live: expect.any(Number) });
    expect(await refreshStatistics(t.ctx.db)).toContain('field_values');
    expect((await lastAnalyze())?.analysed).toBe(true);
    expect(await refreshStatistics(t.ctx.db)).not.toContain('field_values');
  });
});
