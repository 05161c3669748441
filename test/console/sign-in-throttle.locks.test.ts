import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { signInThrottle, throttleKeys, type KeyPair } from '../../src/modules/users/sign-in-throttle.js';
import { newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { until } from '../support/wait.js';

/**
 * The throttle's counters are rows locked in key order by every attempt, failure and success (PostgreSQL: row
 * locks; SQLite has one writer and no order to keep). A success that locked the address's row and then deleted the
 * pair's, while a failure held the pair's and waited for the address's, deadlocked: two racing second steps with
 * one code answered 500 (CI, stop 38). These tests hold a failure's first lock by hand and let a success run into it.
 */
const counter = (ctx: TestContext, hash: string) =>
  ctx.db.direct.selectFrom('sign_in_throttles').selectAll().where('throttle_key', '=', hash).executeTakeFirst();

/** Keys of a user's second step whose pair sorts before the address (the order in which a deadlock could form). */
function pairFirstKeys(userId: string): KeyPair {
  for (let i = 1; ; i++) {
    const keys = throttleKeys.secondStep(userId, `198.51.100.${i}`);
    if (keys.pair.hash < keys.address.hash) return keys;
  }
}

/** Sessions of this database waiting for a lock (another transaction's row lock), other than the asker. */
async function lockWaiters(ctx: TestContext): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*) as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`.execute(ctx.db.direct);
  return Number(rows[0]!.n);
}

describeEachDialect(
  'console: sign-in throttle counters are locked in one order by every step',
  (t) => {
    it('lets a success and a failure that race on one user’s counters both finish, never a deadlock', async () => {
      const user = await newUser(t.ctx.db, 'BOOKKEEPER');
      const keys = pairFirstKeys(user.user_id);
      expect(await signInThrottle.attempt(t.ctx.db, keys)).toBeNull();

      // A failure's transaction: the pair's row first (key order), as signInThrottle.failed locks it...
      let success: Promise<void> | undefined;
      await t.ctx.db.write(async (ex) => {
        await ex
          .selectFrom('sign_in_throttles')
          .select('throttle_key')
          .where('throttle_key', '=', keys.pair.hash)
          .forUpdate()
          .execute();
        // ...a success starts and waits for that row...
        success = signInThrottle.succeeded(t.ctx.db, keys);
        await until('the success waiting for the pair’s row', async () => (await lockWaiters(t.ctx)) > 0);
        // ...and the failure takes the address's row next. Had the success taken it already, this waits on it while
        // the success waits on the pair's row: PostgreSQL breaks the cycle by failing one of them (40P01).
        await ex
          .selectFrom('sign_in_throttles')
          .select('throttle_key')
          .where('throttle_key', '=', keys.address.hash)
          .forUpdate()
          .execute();
      });
      await success;

      // The success ran after the failure, and did all it does: the pair starts again, the address has its attempt back.
      expect(await counter(t.ctx, keys.pair.hash)).toBeUndefined();
      expect(Number((await counter(t.ctx, keys.address.hash))!.failures)).toBe(0);
    });
  },
  {},
  { only: 'postgres' },
);
