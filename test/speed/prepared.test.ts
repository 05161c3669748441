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
