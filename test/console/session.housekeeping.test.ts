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
 * minute, and the deletion of an ended session. A read is not refused when that write finds no room: SQLite's
 * database at its page limit (`max_page_count`) where the write must grow it, PostgreSQL's 53100 disk_full raised by a
 * trigger (its full disk cannot be made without filling the server's). The next request writes the time; the
 * maintenance sweep deletes an ended session once it is past its idle or absolute time. Any other failure of those
 * writes still fails the request.
 */

const MINUTE = 60_000_000;

/**
 * Every `event` (UPDATE or DELETE) of a session row meets a full disk (or, with `other`, a failure that is not one:
 * SQLite's RAISE, PostgreSQL's 42501); returns the undo.
 */
async function sessionWritesFail(
  ctx: TestContext,
  event: 'UPDATE' | 'DELETE',
  other = false,
): Promise<() => Promise<void>> {
  const { direct } = ctx.db;
  const name = `test_full_${randomBytes(4).toString('hex')}`;
  if (ctx.dialect === 'sqlite') {
    // The write must grow the database (a row of a table of the test's own, larger than the free pages), which may
    // not grow: SQLITE_FULL from the session's own statement, as a full disk gives it.
    const pages = async (pragma: string) =>
      Object.values((await sql.raw<Record<string, number>>(`pragma ${pragma}`).execute(direct)).rows[0]!)[0]!;
    const limit = await pages('max_page_count');
    const bytes = ((await pages('freelist_count')) + 64) * (await pages('page_size'));
    await sql.raw(`create table ${name} (filler blob)`).execute(direct);
    const action = other ? `select raise(fail, 'not a full disk')` : `insert into ${name} values (zeroblob(${bytes}))`;
    await sql.raw(`create trigger ${name}_t before ${event} on user_sessions begin ${action}; end`).execute(direct);
    await sql.raw(`pragma max_page_count = ${await pages('page_count')}`).execute(direct);
    return async () => {
      await sql.raw(`pragma max_page_count = ${limit}`).execute(direct);
      await sql.raw(`drop trigger ${name}_t`).execute(direct);
      await sql.raw(`drop table ${name}`).execute(direct);
    };
  }
  const code = other ? '42501' : '53100';
  await sql`create function ${sql.raw(name)}() returns trigger language plpgsql as $$
    begin raise exception 'could not extend file: No space left on device' using errcode = '${sql.raw(code)}'; end $$`.execute(
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
 * A user's session last seen at `lastSeenAt`, read `reads` times from the review queue while every `event` of a
 * session row fails (as sessionWritesFail, `other` included); the failure is undone after the reads.
 */
async function readsWhileSessionWritesFail(
  ctx: TestContext,
  session: Awaited<ReturnType<typeof signedIn>>,
  lastSeenAt: number,
  event: 'UPDATE' | 'DELETE',
  { reads = 1, other = false } = {},
) {
  await ctx.db.direct
    .updateTable('user_sessions')
    .set({ last_seen_at: lastSeenAt })
    .where('user_id', '=', session.user.user_id)
    .execute();
  const undo = await sessionWritesFail(ctx, event, other);
  try {
    const answers = [];
    for (let i = 0; i < reads; i++) answers.push(await session.browser.get(SEARCH, { review_status: 'REVIEW' }));
    return answers;
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
    const read = (await readsWhileSessionWritesFail(t.ctx, session, before, 'UPDATE'))[0]!;
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
    // Read twice: the row left behind stays refused.
    const reads = await readsWhileSessionWritesFail(t.ctx, session, Date.now() * 1000 - 31 * MINUTE, 'DELETE', {
      reads: 2,
    });
    for (const read of reads) {
      expect(read.status, read.text).toBe(401);
      expect(read.body.error_code).toBe('UNAUTHORIZED');
    }
    expect(await storedSessions(t.ctx, user.user_id)).toHaveLength(1);

    await usersService.deleteEnded(t.ctx.db, Date.now() * 1000, 30 * MINUTE);
    expect(await storedSessions(t.ctx, user.user_id)).toEqual([]);
  });

  it('fails the read when the last-seen write fails for another reason than room (500), and stores nothing', async () => {
    const session = await signedIn(t.ctx);
    const before = Date.now() * 1000 - 2 * MINUTE;
    const read = (await readsWhileSessionWritesFail(t.ctx, session, before, 'UPDATE', { other: true }))[0]!;
    expect(read.status, read.text).toBe(500);
    expect(read.body.error_code).toBe('INTERNAL_ERROR');
    expect(Number(await lastSeen(t.ctx, session.user.user_id))).toBe(before);
  });
});
