import { sql } from 'kysely';
import { beforeEach, expect, it } from 'vitest';
import type { Db, Executor } from '../../src/db/database.js';
import { groupedWrites, type GroupedWrites } from '../../src/speed/grouped-writes.js';
import { describeEachDialect } from '../support/context.js';

/**
 * Transactions asked for at once share one commit, each as a savepoint (src/speed/grouped-writes.ts): a value is
 * handed over only once committed, a work that throws is undone alone, and a failed commit fails only the work
 * whose rows the database refuses.
 */
describeEachDialect('speed: grouped writes', (t) => {
  let commits = 0;
  /** What happened, in order: each commit done, and each answer. */
  let log: string[] = [];
  /** The test's database, counting the transactions opened through it and logging their commits. */
  const counted = (): Db => ({
    ...t.ctx.db,
    write: async (work) => {
      commits++;
      const value = await t.ctx.db.write(work);
      log.push('commit');
      return value;
    },
  });
  const insert = (ex: Executor, id: string, parent: string) =>
    sql`insert into gw_child (id, parent_id) values (${id}, ${parent})`.execute(ex);
  /** Takes the one name (a row of gw_child) for `id`, refused when another row has it already. */
  const take = (grouped: GroupedWrites, id: string, parent: string) =>
    grouped.write(async (ex) => {
      const taken = (await sql<{ id: string }>`select id from gw_child`.execute(ex)).rows[0];
      if (taken) throw new Error(`taken by ${taken.id}`);
      await insert(ex, id, parent);
      return id;
    });
  const children = async () =>
    (await sql<{ id: string }>`select id from gw_child order by id`.execute(t.ctx.db.direct)).rows.map((r) => r.id);

  beforeEach(async () => {
    commits = 0;
    log = [];
    await sql`drop table if exists gw_child`.execute(t.ctx.db.direct);
    await sql`drop table if exists gw_parent`.execute(t.ctx.db.direct);
    await sql`create table gw_parent (id text primary key)`.execute(t.ctx.db.direct);
    // Checked at commit: a group's commit can fail for one work's row.
    await sql`create table gw_child (id text primary key, parent_id text not null references gw_parent (id) deferrable initially deferred)`.execute(
      t.ctx.db.direct,
    );
    await sql`insert into gw_parent (id) values ('p')`.execute(t.ctx.db.direct);
  });

  it('runs works asked for at once in one transaction; each value is handed over committed', async () => {
    const grouped = groupedWrites(counted(), { maxBatch: 32, concurrency: 1 });
    const seen: string[][] = [];
    const values = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        grouped
          .write(async (ex) => {
            await insert(ex, `c${i}`, 'p');
            return i;
          })
          .then(async (value) => {
            seen.push(await children());
            return value;
          }),
      ),
    );
    expect(values).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(commits).toBe(1);
    for (const rows of seen) expect(rows).toHaveLength(8);
  });

  it('answers every caller when the group transaction itself fails (its BEGIN refused: a busy database)', async () => {
    // The first transaction asked for, the group's, is refused before any work runs (as SQLite's BEGIN IMMEDIATE
    // past its busy timeout, or a PostgreSQL pool that cannot connect): no caller may be left without an answer.
    let refusals = 1;
    const busy: Db = {
      ...t.ctx.db,
      write: (work) => {
        commits++;
        if (refusals-- > 0) return Promise.reject(new Error('database is busy'));
        return t.ctx.db.write(work);
      },
    };
    const grouped = groupedWrites(busy, { maxBatch: 32, concurrency: 1 });
    const answers = await Promise.allSettled(
      ['a', 'b', 'c'].map((id) =>
        grouped.write(async (ex) => {
          await insert(ex, id, 'p');
          return id;
        }),
      ),
    );
    // Each tried again alone, in a transaction of its own.
    expect(answers).toEqual(['a', 'b', 'c'].map((value) => ({ status: 'fulfilled', value })));
    expect(commits).toBe(4);
    expect(await children()).toEqual(['a', 'b', 'c']);
  });

  it('undoes a work that throws alone, and answers it with its error', async () => {
    const grouped = groupedWrites(counted(), { maxBatch: 32, concurrency: 1 });
    const answers = await Promise.allSettled(
      ['a', 'b', 'c'].map((id) =>
        grouped.write(async (ex) => {
          await insert(ex, id, 'p');
          if (id === 'b') throw new Error('refused b');
          return id;
        }),
      ),
    );
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message))).toEqual([
      'a',
      'refused b',
      'c',
    ]);
    expect(await children()).toEqual(['a', 'c']);
    expect(commits).toBe(1);
  });

  it('answers a refusal that read a peer of its group only once the group has committed', async () => {
    const grouped = groupedWrites(counted(), { maxBatch: 32, concurrency: 1 });
    const answers = await Promise.allSettled([
      // 'a' takes a name; 'b', asking after it in the same group, finds it taken (by 'a', not committed yet).
      take(grouped, 'a', 'p').finally(() => log.push('a answered')),
      take(grouped, 'b', 'p').finally(() => log.push('b answered')),
    ]);
    expect(answers.map((a) => (a.status === 'fulfilled' ? a.value : (a.reason as Error).message))).toEqual([
      'a',
      'taken by a',
    ]);
    // Refused on committed state: after what refused it was committed.
    expect(log).toEqual(['commit', 'a answered', 'b answered']);
    expect(commits).toBe(1);
  });

  it('judges a refusal that read a peer again alone when the group commit fails: the peer never committed', async () => {
    const grouped = groupedWrites(counted(), { maxBatch: 32, concurrency: 1 });
    // 'a' takes the name, but its row fails the commit (its parent is missing), in the group and alone; 'b' found
    // the name taken by 'a' in the group. Refused then, 'b' would be told of a taker that never was.
    const answers = await Promise.allSettled([take(grouped, 'a', 'missing'), take(grouped, 'b', 'p')]);
    expect(answers[0]!.status).toBe('rejected');
    expect(answers[1]).toEqual({ status: 'fulfilled', value: 'b' });
    expect(await children()).toEqual(['b']);
    // The group's, then 'a' alone and 'b' alone.
    expect(commits).toBe(3);
  });

  it('runs each work again alone when the group commit fails: only the work the database refuses fails', async () => {
    const grouped = groupedWrites(counted(), { maxBatch: 32, concurrency: 1 });
    const answers = await Promise.allSettled(
      ['a', 'b', 'c'].map((id) =>
        grouped.write(async (ex) => {
          await insert(ex, id, id === 'b' ? 'missing' : 'p');
          return id;
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await children()).toEqual(['a', 'c']);
    // The group's, then one for each work alone.
    expect(commits).toBe(4);
  });

  it('lets a step under way (an upload writing its bytes) join the group, without waiting for steps started later', async () => {
    const grouped = groupedWrites(counted(), { maxBatch: 32, concurrency: 1 });
    let finish!: () => void;
    const step = grouped.before(() => new Promise<void>((resolve) => (finish = resolve)));
    const first = grouped.write((ex) => insert(ex, 'first', 'p'));
    // The group waits for the step under way; its write joins it.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(commits).toBe(0);
    finish();
    const second = step.then(() => grouped.write((ex) => insert(ex, 'second', 'p')));
    await Promise.all([first, second]);
    expect(commits).toBe(1);
    expect(await children()).toEqual(['first', 'second']);
  });
});
