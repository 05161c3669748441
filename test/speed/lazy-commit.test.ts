import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Db, Executor, WriteOptions } from '../../src/db/database.js';
import { openDatabase } from '../../src/db/open.js';
import { turnOff } from '../../src/speed/switches.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { counted, endpointWithEvents, storedDeliveries } from '../support/webhook-outcomes.js';
import { testClock, testDispatcher } from '../support/webhooks.js';

/** One connection (a pool of 1 on PostgreSQL), so that every transaction of `db` runs where the last one ran. */
const oneConnection = (ctx: TestContext): Db =>
  openDatabase(loadConfig({ DATABASE_URL: ctx.database.url }).database, { poolSize: 1 });

/**
 * What the connection's commit waits for, as the database says it: SQLite's `synchronous` (2 FULL: the WAL synced at
 * each commit; 1 NORMAL: written, not synced) or PostgreSQL's `synchronous_commit`.
 */
async function flushing(ex: Executor): Promise<string> {
  if (ex.dialect === 'sqlite') {
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(ex);
    const names: Record<number, string> = { 1: 'NORMAL', 2: 'FULL' };
    return names[rows[0]!.synchronous] ?? String(rows[0]!.synchronous);
  }
  const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(ex);
  return rows[0]!.synchronous_commit;
}

const LAZY: WriteOptions = { durable: false };

/**
 * Writes whose commit need not wait for the disk (`WriteOptions.durable` false; piece `lazy-commit`: webhook
 * deliveries' claims and outcomes): the setting is changed for that transaction alone, on both dialects, and put back
 * whether it commits or rolls back; what it wrote commits (or not) as any write's does. What a power cut would lose
 * cannot be shown here; the order in which the logs are synced is the databases' own (docs/webhooks.md).
 */
describeEachDialect(
  'speed: commits that do not wait for the disk',
  (t) => {
    let db: Db;
    beforeEach(async () => {
      db = oneConnection(t.ctx);
      await sql`create table lc_rows (id text primary key)`.execute(db.direct);
    });
    afterEach(async () => {
      turnOff(undefined);
      await sql`drop table if exists lc_rows`.execute(db.direct);
      await db.close();
    });
    const rows = async () =>
      (await sql<{ id: string }>`select id from lc_rows order by id`.execute(db.direct)).rows.map((r) => r.id);
    const insert = (ex: Executor, id: string) => sql`insert into lc_rows (id) values (${id})`.execute(ex);
    const [durable, lazy] = t.dialect === 'sqlite' ? ['FULL', 'NORMAL'] : ['on', 'off'];

    it('commits without waiting for the disk only the write that asks, and puts the setting back after it', async () => {
      expect(await db.write((ex) => flushing(ex))).toBe(durable);
      const inside = await db.write(async (ex) => {
        await insert(ex, 'lazy');
        return flushing(ex);
      }, LAZY);
      expect(inside).toBe(lazy);
      expect(await rows()).toEqual(['lazy']);
      // The next transaction on the same connection, and a statement outside any, wait for the disk again.
      expect(await db.write((ex) => flushing(ex))).toBe(durable);
      expect(await db.write((ex) => flushing(ex), { durable: true })).toBe(durable);
      expect(await flushing(db.direct)).toBe(durable);
    });

    it('undoes a lazy write that fails whole, and puts the setting back after its rollback', async () => {
      await expect(
        db.write(async (ex) => {
          await insert(ex, 'undone');
          throw new Error('refused');
        }, LAZY),
      ).rejects.toThrow('refused');
      // A statement the database refuses (the row is there already) rolls the lazy write back the same way.
      await db.write((ex) => insert(ex, 'kept'));
      await expect(
        db.write(async (ex) => {
          await insert(ex, 'also undone');
          await insert(ex, 'kept');
        }, LAZY),
      ).rejects.toThrow();
      expect(await rows()).toEqual(['kept']);
      expect(await db.write((ex) => flushing(ex))).toBe(durable);
    });

    it('commits a write opened without JIT as any other, durably unless it asks otherwise', async () => {
      // `jit: false` turns PostgreSQL's JIT off for that transaction alone (what it plans: test/speed/no-jit.test.ts),
      // and never changes how the write commits. SQLite has no JIT.
      const jit = async (ex: Executor) =>
        ex.dialect === 'sqlite'
          ? 'none'
          : (await sql<{ jit: string }>`select current_setting('jit') as jit`.execute(ex)).rows[0]!.jit;
      if (t.dialect === 'postgres') await sql`set jit = on`.execute(db.direct);
      const [on, off] = t.dialect === 'sqlite' ? ['none', 'none'] : ['on', 'off'];
      const seen = (id: string) => async (ex: Executor) => {
        await insert(ex, id);
        return { flushing: await flushing(ex), jit: await jit(ex) };
      };
      expect(await db.write(seen('no jit'), { jit: false })).toEqual({ flushing: durable, jit: off });
      expect(await db.write(seen('no jit, lazy'), { jit: false, durable: false })).toEqual({
        flushing: lazy,
        jit: off,
      });
      expect(await db.write(seen('plain'))).toEqual({ flushing: durable, jit: on });
      await expect(
        db.write(
          async (ex) => {
            await insert(ex, 'undone');
            throw new Error('refused');
          },
          { jit: false, durable: false },
        ),
      ).rejects.toThrow('refused');
      expect(await rows()).toEqual(['no jit', 'no jit, lazy', 'plain']);
      expect(await db.write(async (ex) => ({ flushing: await flushing(ex), jit: await jit(ex) }))).toEqual({
        flushing: durable,
        jit: on,
      });
    });

    it('runs a durable write asked for while a lazy one is open under its own setting, after it', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const open = new Promise<void>((resolve) => (entered = resolve));
      const order: string[] = [];
      const first = db.write(async (ex) => {
        entered();
        await held;
        await insert(ex, 'lazy');
        order.push(`lazy ${await flushing(ex)}`);
      }, LAZY);
      await open;
      const second = db.write(async (ex) => {
        await insert(ex, 'durable');
        order.push(`durable ${await flushing(ex)}`);
      });
      release();
      await Promise.all([first, second]);
      expect(order).toEqual([`lazy ${lazy}`, `durable ${durable}`]);
      expect(await rows()).toEqual(['durable', 'lazy']);
    });

    it("commits a dispatcher's claims and outcomes lazily and nothing else of it; every write durable with the piece off", async () => {
      for (const piece of ['on', 'off'] as const) {
        turnOff(piece === 'off' ? 'lazy-commit' : undefined);
        const { hook } = await endpointWithEvents(t.ctx, 3, 'ok', 3);
        const watched = counted(t.ctx.db);
        const dispatcher = testDispatcher(watched.db, {}, testClock({ frozen: true }));
        try {
          const { claimed } = await dispatcher.step();
          expect(claimed).toHaveLength(3);
          expect(await Promise.all(claimed.map((c) => c.settled))).toEqual([true, true, true]);
          await dispatcher.settled();
        } finally {
          await dispatcher.stop();
        }
        expect((await storedDeliveries(t.ctx, hook.id)).map((d) => d.status)).toEqual(Array(3).fill('DELIVERED'));
        // In order: the step's fan-out and the dispatcher's joining (durable), its claim, the outcomes' groups (one
        // to three, as the attempts ended), its leaving (durable). The claim and the groups are lazy with the piece on.
        const kind = piece === 'on' ? 'lazy' : 'durable';
        const [fanOut, join, claim, ...rest] = watched.kinds;
        const leave = rest.pop();
        expect([fanOut, join, claim, leave]).toEqual(['durable', 'durable', kind, 'durable']);
        expect(rest.length).toBeGreaterThanOrEqual(1);
        expect(rest.length).toBeLessThanOrEqual(3);
        expect(rest).toEqual(Array(rest.length).fill(kind));
        // The claim and the groups are opened without JIT either way (piece `hint-no-jit`); nothing else is.
        expect(watched.jit).toEqual(['default', 'default', 'off', ...rest.map(() => 'off'), 'default']);
      }
    });

    it('has a dispatcher beat once more, durably, within a beat of being busy, then write nothing idle, a short burst included', async () => {
      const { api, hook } = await endpointWithEvents(t.ctx, 1, 'ok', 2);
      const { db: watched, kinds: writes } = counted(t.ctx.db);
      const clock = testClock({ frozen: true });
      const dispatcher = testDispatcher(watched, {}, clock);
      const beats = async () =>
        Number(
          (
            await sql<{
              beats: number;
            }>`select beats from webhook_dispatchers where dispatcher_id = ${dispatcher.id}`.execute(t.ctx.db.direct)
          ).rows[0]?.beats,
        );
      try {
        const { claimed } = await dispatcher.step();
        expect(claimed).toHaveLength(1);
        expect(await claimed[0]!.settled).toBe(true);
        await dispatcher.settled();
        expect((await storedDeliveries(t.ctx, hook.id)).map((d) => d.status)).toEqual(['DELIVERED']);
        const before = { writes: writes.length, beats: await beats() };
        // Idle, before a beat is due: nothing written.
        clock.advance(0.5);
        expect((await dispatcher.step()).claimed).toEqual([]);
        expect(writes.length).toBe(before.writes);
        // A beat's interval after the last: one beat, durable (it syncs what the lazy commits left unsynced).
        clock.advance(0.6);
        expect((await dispatcher.step()).claimed).toEqual([]);
        expect(writes.slice(before.writes)).toEqual(['durable']);
        expect(await beats()).toBe(before.beats + 1);
        // A short burst that starts and ends between two beats (0.3 s after this one): its fan-out is durable, its
        // claim and outcome lazy, and no beat is due while it runs; one beat follows within a beat's interval of the
        // last one, for the outcome's sake.
        const idleBeat = writes.length;
        clock.advance(0.3);
        await api.readyRecord();
        const burst = await dispatcher.step();
        expect(burst.claimed).toHaveLength(1);
        expect(await burst.claimed[0]!.settled).toBe(true);
        await dispatcher.settled();
        expect(writes.slice(idleBeat)).toEqual(['durable', 'lazy', 'lazy']);
        clock.advance(0.3);
        expect((await dispatcher.step()).claimed).toEqual([]);
        expect(writes.slice(idleBeat)).toEqual(['durable', 'lazy', 'lazy']);
        clock.advance(0.5);
        expect((await dispatcher.step()).claimed).toEqual([]);
        expect(writes.slice(idleBeat)).toEqual(['durable', 'lazy', 'lazy', 'durable']);
        expect(await beats()).toBe(before.beats + 2);
        expect((await storedDeliveries(t.ctx, hook.id)).map((d) => d.status)).toEqual(['DELIVERED', 'DELIVERED']);

        // Then idle as before: no more beats.
        for (let i = 0; i < 3; i++) {
          clock.advance(1.1);
          expect((await dispatcher.step()).claimed).toEqual([]);
        }
        expect(writes.slice(idleBeat)).toEqual(['durable', 'lazy', 'lazy', 'durable']);
        expect(await beats()).toBe(before.beats + 2);
      } finally {
        await dispatcher.stop();
      }
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
