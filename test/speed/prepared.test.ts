import { expect, it } from 'vitest';
import type { Executor } from '../../src/db/database.js';
import { preparedQuery } from '../../src/speed/prepared.js';
import { describeEachDialect } from '../support/context.js';

const byName = preparedQuery<{ accountId: string; name: string }>()((ex, p) =>
  ex
    .selectFrom('fields')
    .select(['svc_id', 'name', 'is_disabled', 'created_at'])
    .where('account_id', '=', p('accountId'))
    .where('name', '=', p('name'))
    .where('is_disabled', '=', 0)
    .orderBy('svc_id'),
);

const fresh = (ex: Executor, accountId: string, name: string) =>
  ex
    .selectFrom('fields')
    .select(['svc_id', 'name', 'is_disabled', 'created_at'])
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .where('is_disabled', '=', 0)
    .orderBy('svc_id')
    .execute();

/**
 * Prepared queries (src/speed/prepared.ts): compiled once per dialect, run with new values. Each run answers what a
 * fresh build of the query with the same values answers — outside a transaction (PostgreSQL: a SELECT on the pool at
 * once, piece `pg-direct-reads`, bigint times read as numbers as Kysely's are), inside a read and inside a write — and
 * no value of an earlier run sticks (its constants stay as written).
 */
describeEachDialect('prepared queries', (t) => {
  it('answer as the same query built afresh, for every value, in and out of transactions', async () => {
    const api = await t.ctx.as(['fields.write']);
    const other = await t.ctx.as(['fields.write']);
    for (const name of ['GL', 'GL', 'Class', "O'Brien \u00e9"]) await api.newField({ name });
    await other.newField({ name: 'GL' });
    const db = t.ctx.db;
    expect(db.direct.directRead !== undefined).toBe(t.dialect === 'postgres');
    const cases = [
      [api.accountId, 'GL'],
      [api.accountId, 'Class'],
      [api.accountId, "O'Brien \u00e9"],
      [api.accountId, 'none'],
      [other.accountId, 'GL'],
    ] as const;
    for (const [accountId, name] of cases) {
      const expected = await fresh(db.direct, accountId, name);
      expect((await byName(db.direct, { accountId, name })).rows).toEqual(expected);
      expect(await db.read(async (ex) => (await byName(ex, { accountId, name })).rows)).toEqual(expected);
      expect(await db.write(async (ex) => (await byName(ex, { accountId, name })).rows)).toEqual(expected);
    }
    expect((await byName(db.direct, { accountId: api.accountId, name: 'GL' })).rows).toHaveLength(2);
  });
});

const rename = preparedQuery<{ accountId: string; svcId: string; name: string }>()((ex, p) =>
  ex
    .updateTable('fields')
    .set({ name: p('name') })
    .where('account_id', '=', p('accountId'))
    .where('svc_id', '=', p('svcId')),
);

/**
 * `each` (export results, history and account events): a statement that writes, run once per values in the caller's
 * write transaction, changes what running it value by value changes and answers the rows changed in all. On SQLite
 * it runs straight on the transaction's connection (`runEach`, given to write transactions alone), and each run is
 * counted for the change mark as the driver counts its own.
 */
describeEachDialect('prepared queries: each', (t) => {
  it('changes what one run per value changes, answers the count, and counts each run for the change mark', async () => {
    const api = await t.ctx.as(['fields.write']);
    const ids = [
      await api.newField({ name: 'A' }),
      await api.newField({ name: 'B' }),
      await api.newField({ name: 'C' }),
    ];
    const db = t.ctx.db;
    const names = async () =>
      (
        await db.direct
          .selectFrom('fields')
          .select('name')
          .where('account_id', '=', api.accountId)
          .orderBy('svc_id')
          .execute()
      ).map((r) => r.name);
    expect(await db.write(async (ex) => ex.runEach !== undefined)).toBe(t.dialect === 'sqlite');
    expect(db.direct.runEach).toBeUndefined();
    expect(await db.read(async (ex) => ex.runEach)).toBeUndefined();

    const values = (prefix: string) => [
      ...ids.map((svcId, i) => ({ accountId: api.accountId, svcId, name: `${prefix} ${i} "q" \\ ✓` })),
      { accountId: api.accountId, svcId: 'fld_none', name: 'nothing' },
    ];
    expect(await db.write((ex) => rename.each(ex, values('each')))).toBe(3);
    const byEach = await names();
    expect(byEach).toEqual(ids.map((_, i) => `each ${i} "q" \\ ✓`).sort());
    const oneByOne = await db.write(async (ex) => {
      let changed = 0;
      for (const v of values('one')) changed += Number((await rename(ex, v)).numAffectedRows ?? 0n);
      return changed;
    });
    expect(oneByOne).toBe(3);
    expect(await names()).toEqual(ids.map((_, i) => `one ${i} "q" \\ ✓`).sort());
    // Rolled back with its transaction, as any statement of it.
    await expect(
      db.write(async (ex) => {
        await rename.each(ex, values('lost'));
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await names()).toEqual(ids.map((_, i) => `one ${i} "q" \\ ✓`).sort());

    if (t.dialect === 'sqlite') {
      const writes = () => Number(db.direct.changeMark!()!.split(':')[0]);
      const counted = async (list: ReturnType<typeof values>) => {
        const before = writes();
        await db.write((ex) => rename.each(ex, list));
        return writes() - before;
      };
      expect((await counted(values('x'))) - (await counted([]))).toBe(4);
    }
  });
});
