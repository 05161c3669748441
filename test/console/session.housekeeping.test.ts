import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { usersService } from '../../src/modules/users/users.service.js';
import { ADMIN } from '../support/accounting.js';
import { Browser, newUser, storedSessions } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { SEARCH } from '../support/review.js';

/**
 * What a session's load writes is housekeeping (src/modules/users/sessions.ts): its last-seen time, at most once a
 * minute, and the deletion of an ended session. A read is not refused when that write fails (here: refused by the
 * database as a full disk refuses it, 53100 on PostgreSQL, SQLITE_FULL's words on SQLite, raised by a trigger on the
 * sessions table); the next request writes it, and the maintenance sweep deletes what was left.
 */

const MINUTE = 60_000_000;

/** Every `event` (UPDATE or DELETE) of a session row fails, as on a full disk; returns the undo. */
async function sessionWritesFail(ctx: TestContext, event: 'UPDATE' | 'DELETE'): Promise<() => Promise<void>> {
  const { direct } = ctx.db;
  const name = `test_full_${randomBytes(4).toString('hex')}`;
  if (ctx.dialect === 'sqlite') {
    await sql
      .raw(
        `create trigger ${name} before ${event} on user_sessions begin select raise(fail, 'database or disk is full'); end`,
      )
      .execute(direct);
    return async () => {
      await sql.raw(`drop trigger ${name}`).execute(direct);
    };
  }
  await sql`create function ${sql.raw(name)}() returns trigger language plpgsql as $$
    begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$`.execute(
    direct,
  );
  await sql`create trigger ${sql.raw(name)} before ${sql.raw(event)} on user_sessions for each row
    execute function ${sql.raw(name)}()`.execute(direct);
  return async () => {
    await sql`drop trigger ${sql.raw(name)} on user_sessions`.execute(direct);
    await sql`drop function ${sql.raw(name)}()`.execute(direct);
  };
}

async function signedIn(ctx: TestContext) {
  const api = await ctx.as([...ADMIN, 'accounting.record.read']);
  const record = await api.newRecord({ review_status: 'REVIEW' });
  const user = await newUser(ctx.db, 'READ_ONLY', api.accountId);
  return { record, user, browser: await Browser.signIn(ctx.app, user) };
}

const lastSeen = async (ctx: TestContext, userId: string) => (await storedSessions(ctx, userId))[0]?.last_seen_at;

/**
 * A user's session last seen at `lastSeenAt`, read from the review queue while every `event` of a session row fails;
 * the failure is undone after the read.
 */
async function readWhileSessionWritesFail(
  ctx: TestContext,
  session: Awaited<ReturnType<typeof signedIn>>,
  lastSeenAt: number,
  event: 'UPDATE' | 'DELETE',
) {
  await ctx.db.direct
    .updateTable('user_sessions')
    .set({ last_seen_at: lastSeenAt })
    .where('user_id', '=', session.user.user_id)
    .execute();
  const undo = await sessionWritesFail(ctx, event);
  try {
    return await session.browser.get(SEARCH, { review_status: 'REVIEW' });
  } finally {
    await undo();
  }
}

describeEachDialect('console: a session read goes on when its housekeeping write fails', (t) => {
  it('answers a read whose last-seen time cannot be written, and writes that time at the next request', async () => {
    const session = await signedIn(t.ctx);
    const { record, user, browser } = session;
    // Two minutes since the session was last seen: this request's load writes the time.
    const before = Date.now() * 1000 - 2 * MINUTE;
    const read = await readWhileSessionWritesFail(t.ctx, session, before, 'UPDATE');
    expect(read.status, read.text).toBe(200);
    expect(read.body.items.map((r: { id: string }) => r.id)).toEqual([record.id]);
    expect(Number(await lastSeen(t.ctx, user.user_id))).toBe(before);

    const next = await browser.get(SEARCH, { review_status: 'REVIEW' });
    expect(next.status, next.text).toBe(200);
    expect(Number(await lastSeen(t.ctx, user.user_id))).toBeGreaterThan(before);
  });

  it('signs an idle session out though its row cannot be deleted; the maintenance sweep deletes it later', async () => {
    const session = await signedIn(t.ctx);
    const { user } = session;
    // Idle for 31 minutes (the limit is 30): this request's load ends the session.
    const read = await readWhileSessionWritesFail(t.ctx, session, Date.now() * 1000 - 31 * MINUTE, 'DELETE');
    expect(read.status, read.text).toBe(401);
    expect(read.body.error_code).toBe('UNAUTHORIZED');
    expect(await storedSessions(t.ctx, user.user_id)).toHaveLength(1);

    await usersService.deleteEnded(t.ctx.db, Date.now() * 1000, 30 * MINUTE);
    expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
  });
});
