import type { FastifyInstance } from 'fastify';
import { expect, it } from 'vitest';
import { advanceClock, freezeClock } from '../../src/lib/clock.js';
import { throttleKeys } from '../../src/modules/users/sign-in-throttle.js';
import { newUser, PASSWORD, sessionCookie } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { seconds } from '../support/mfa.js';

const SESSION = '/auth/session';
// The service's clock moves only when a test moves it: delays are exact, whatever the machine's speed.
freezeClock();

function signIn(app: FastifyInstance, email: string, password: string, ip: string) {
  return app.inject({ method: 'POST', url: SESSION, payload: { email, password }, remoteAddress: ip });
}

/** What an answer tells a client, all of it but the request id and the time. */
function visible(res: Awaited<ReturnType<typeof signIn>>) {
  const { request_id: _id, ...body } = JSON.parse(res.body);
  const { date: _date, 'x-request-id': _rid, 'content-length': _length, ...headers } = res.headers;
  return { status: res.statusCode, body, headers };
}

const storedCounter = (ctx: TestContext, hash: string) =>
  ctx.db.direct.selectFrom('sign_in_throttles').selectAll().where('throttle_key', '=', hash).executeTakeFirst();

const locked = (seconds: number) =>
  errorBody('SIGN_IN_LOCKED', {
    message: `Too many failed sign-in attempts: wait ${seconds} seconds before trying again.`,
    details: { retry_after_seconds: seconds },
  });

let addresses = 0;
/** A client address of its own for each use (TEST-NET-3), so that tests count nothing for each other. */
const address = () => `203.0.113.${++addresses}`;

describeEachDialect('console: sign-in throttled per (email, address) and per address, with growing delays', (t) => {
  it('never lets a stranger elsewhere lock a user out, however many wrong passwords they send', async () => {
    const user = await newUser(t.ctx.db, 'BOOKKEEPER');
    const stranger = address();
    for (let i = 0; i < 40; i++) {
      const res = await signIn(t.ctx.app, user.email, `wrong password number ${i}`, stranger);
      expect([401, 429]).toContain(res.statusCode);
      // Past each delay the stranger guesses again: the counters grow as far as they can.
      if (res.statusCode === 429) advanceClock(seconds(Number(res.headers['retry-after'])));
    }
    // The stranger's own address is refused now (a last failure sets a delay, or one is running)...
    await signIn(t.ctx.app, user.email, 'one more wrong password', stranger);
    expect((await signIn(t.ctx.app, user.email, PASSWORD, stranger)).statusCode).toBe(429);
    // ...and the user, at theirs, signs in.
    const own = await signIn(t.ctx.app, user.email, PASSWORD, address());
    expect(own.statusCode, own.body).toBe(200);
    expect(sessionCookie(own)).not.toBeNull();
    // Nor do the users table's columns of the old lockout move.
    const row = await t.ctx.db.direct
      .selectFrom('users')
      .selectAll()
      .where('user_id', '=', user.user_id)
      .executeTakeFirstOrThrow();
    expect([row.failed_sign_ins, row.locked_until]).toEqual([0, null]);
  });

  it('answers an unknown email exactly as a known one, attempt after attempt, throttled or not', async () => {
    const user = await newUser(t.ctx.db, 'READ_ONLY');
    const [known, unknown] = [address(), address()];
    const sequence: ('now' | number)[] = ['now', 'now', 'now', 'now', 'now', 'now', 1, 'now', 2, 'now', 'now', 4];
    const answers: { known: unknown; unknown: unknown }[] = [];
    for (const [i, step] of sequence.entries()) {
      if (step !== 'now') advanceClock(seconds(step));
      const password = `wrong password ${i}`;
      answers.push({
        known: visible(await signIn(t.ctx.app, user.email, password, known)),
        unknown: visible(await signIn(t.ctx.app, `nobody.${user.email}`, password, unknown)),
      });
    }
    for (const answer of answers) expect(answer.unknown).toEqual(answer.known);
    expect(answers.map((a) => (a.known as { status: number }).status)).toEqual([
      401, 401, 401, 401, 401, 429, 401, 429, 401, 429, 429, 401,
    ]);
    expect(answers[5]!.known).toEqual({
      status: 429,
      body: { ...locked(1), request_id: undefined },
      headers: expect.objectContaining({ 'retry-after': '1' }),
    });
  });

  it('refuses for 1 s after 5 failures, then twice as long after each further one, at most 15 minutes; a success clears the count', async () => {
    const user = await newUser(t.ctx.db, 'BOOKKEEPER');
    const ip = address();
    const wrong = () => signIn(t.ctx.app, user.email, 'not the password at all', ip);
    for (let i = 0; i < 5; i++) expect((await wrong()).statusCode).toBe(401);
    let delay = 1;
    for (let failure = 6; failure <= 16; failure++) {
      const refused = await wrong();
      expect(refused.statusCode).toBe(429);
      expect(JSON.parse(refused.body)).toEqual(locked(delay));
      expect(refused.headers['retry-after']).toBe(String(delay));
      // Even the right password, while refused: nothing is checked.
      expect((await signIn(t.ctx.app, user.email, PASSWORD, ip)).statusCode).toBe(429);
      advanceClock(seconds(delay) - 1000);
      expect((await wrong()).headers['retry-after']).toBe('1');
      advanceClock(1000);
      expect((await wrong()).statusCode).toBe(401);
      delay = Math.min(delay * 2, 900);
    }
    expect(delay).toBe(900);
    const pair = throttleKeys.password(user.email, ip);
    expect(await storedCounter(t.ctx, pair.pair.hash)).toMatchObject({ failures: 16 });

    advanceClock(seconds(900));
    expect((await signIn(t.ctx.app, user.email, PASSWORD, ip)).statusCode).toBe(200);
    expect(await storedCounter(t.ctx, pair.pair.hash)).toBeUndefined();
    // The address keeps its own count (16 failures; the success gave its attempt back).
    expect(await storedCounter(t.ctx, pair.address.hash)).toMatchObject({ failures: 16, blocked_until: null });
    for (let i = 0; i < 4; i++) expect((await wrong()).statusCode).toBe(401);
  });

  it('throttles an address trying many emails after 20 failures; other addresses are untouched', async () => {
    const user = await newUser(t.ctx.db, 'READ_ONLY');
    const ip = address();
    for (let i = 0; i < 20; i++) {
      expect((await signIn(t.ctx.app, `guess${i}@example.com`, 'a wrong password', ip)).statusCode).toBe(401);
    }
    const refused = await signIn(t.ctx.app, user.email, PASSWORD, ip);
    expect([refused.statusCode, refused.headers['retry-after']]).toEqual([429, '1']);
    expect((await signIn(t.ctx.app, user.email, PASSWORD, address())).statusCode).toBe(200);
    advanceClock(seconds(1));
    expect((await signIn(t.ctx.app, user.email, PASSWORD, ip)).statusCode).toBe(200);
  });

  it('counts an IPv6 client by its /64, and an IPv4-mapped address as IPv4', async () => {
    const user = await newUser(t.ctx.db, 'READ_ONLY');
    for (let i = 0; i < 5; i++) {
      const ip = `2001:db8:${addresses}:7::${i + 1}`;
      expect((await signIn(t.ctx.app, user.email, 'a wrong password', ip)).statusCode).toBe(401);
    }
    expect((await signIn(t.ctx.app, user.email, PASSWORD, `2001:db8:${addresses}:7:ffff::9`)).statusCode).toBe(429);
    expect((await signIn(t.ctx.app, user.email, PASSWORD, `2001:db8:${addresses}:8::1`)).statusCode).toBe(200);

    const v4 = address();
    for (let i = 0; i < 5; i++) await signIn(t.ctx.app, user.email, 'a wrong password', `::ffff:${v4}`);
    expect((await signIn(t.ctx.app, user.email, PASSWORD, v4)).statusCode).toBe(429);
  });

  it('keeps the counters in the database: another process sees them', async () => {
    const user = await newUser(t.ctx.db, 'BOOKKEEPER');
    const other = await t.ctx.secondApp();
    const ip = address();
    for (let i = 0; i < 5; i++) {
      const app = i % 2 === 0 ? t.ctx.app : other;
      expect((await signIn(app, user.email, 'a wrong password', ip)).statusCode).toBe(401);
    }
    expect((await signIn(other, user.email, PASSWORD, ip)).statusCode).toBe(429);
    expect((await signIn(t.ctx.app, user.email, PASSWORD, ip)).statusCode).toBe(429);
  });

  it('lets concurrent guesses share one budget: one attempt passes a delay, the others are refused unchecked', async () => {
    const user = await newUser(t.ctx.db, 'BOOKKEEPER');
    const ip = address();
    // 14 failures, each after the delay before it: the next failure blocks the pair for 15 minutes.
    for (let failure = 1; failure <= 14; failure++) {
      const res = await signIn(t.ctx.app, user.email, 'a wrong password', ip);
      expect(res.statusCode).toBe(401);
      advanceClock(seconds(600));
    }
    const guesses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => signIn(t.ctx.app, user.email, `concurrent guess ${i}`, ip)),
    );
    expect(guesses.map((g) => g.statusCode).sort()).toEqual([401, 429, 429, 429, 429, 429, 429, 429, 429, 429]);
    const pair = throttleKeys.password(user.email, ip).pair;
    expect(await storedCounter(t.ctx, pair.hash)).toMatchObject({ failures: 15 });
  });

  it('forgets a counter a day after its last attempt, and the maintenance sweep deletes it', async () => {
    const { usersService } = await import('../../src/modules/users/users.service.js');
    const { nowMicros } = await import('../../src/lib/clock.js');
    const user = await newUser(t.ctx.db, 'READ_ONLY');
    const ip = address();
    for (let i = 0; i < 5; i++) await signIn(t.ctx.app, user.email, 'a wrong password', ip);
    advanceClock(seconds(24 * 3600));
    const keys = throttleKeys.password(user.email, ip);
    // A new failure counts from one again.
    expect((await signIn(t.ctx.app, user.email, 'a wrong password', ip)).statusCode).toBe(401);
    expect(await storedCounter(t.ctx, keys.pair.hash)).toMatchObject({ failures: 1, blocked_until: null });
    advanceClock(seconds(24 * 3600));
    const swept = await usersService.deleteEnded(t.ctx.db, nowMicros(), 30 * 60_000_000);
    expect(swept.throttles).toBeGreaterThanOrEqual(2);
    expect(await storedCounter(t.ctx, keys.pair.hash)).toBeUndefined();
    expect(await storedCounter(t.ctx, keys.address.hash)).toBeUndefined();
  });
});
