import { expect, it } from 'vitest';
import { usersService } from '../../src/modules/users/users.service.js';
import { describeEachDialect, newAccountId, type TestContext } from '../support/context.js';
import { errorBody } from '../support/expect.js';

const refused = (message: string) =>
  errorBody('INVALID_REQUEST', {
    message: `The request is invalid: /password ${message}.`,
    details: { errors: [{ path: '/password', message }] },
  });

async function invited(ctx: TestContext, email = `pat.${Math.random().toString(36).slice(2, 8)}@example.com`) {
  const link = await usersService.create(ctx.db, { accountId: newAccountId(), email, role: 'BOOKKEEPER' });
  const set = (password: string) =>
    ctx.app.inject({ method: 'POST', url: '/auth/password', payload: { token: link.token, password } });
  const signIn = (password: string) =>
    ctx.app.inject({ method: 'POST', url: '/auth/session', payload: { email, password } });
  const storedHash = async () =>
    (
      await ctx.db.direct
        .selectFrom('users')
        .select('password_hash')
        .where('user_id', '=', link.user.user_id)
        .executeTakeFirstOrThrow()
    ).password_hash;
  return { link, email, set, signIn, storedHash };
}

const TOO_SHORT = 'must be at least 15 characters: a few unrelated words make a long password that is easy to remember';

describeEachDialect('console: the password policy (NIST SP 800-63B)', (t) => {
  it('refuses 12 spaces, and any password under 15 characters, saying what to do; the link stays usable', async () => {
    const user = await invited(t.ctx);
    for (const password of [' '.repeat(12), 'Tr0ub4dor&3xyz', 'ab']) {
      const res = await user.set(password);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(refused(TOO_SHORT));
    }
    expect(await user.storedHash()).toBeNull();
    expect((await user.set('tangerine kettle forty ocelots')).statusCode).toBe(200);
  });

  it('refuses what is easy to guess, with the estimator’s advice: repeats, common passwords, sequences, the email', async () => {
    const user = await invited(t.ctx, 'kim.lowe@example.com');
    const cases: [string, string][] = [
      [
        ' '.repeat(15),
        'is too easy to guess. Repeated characters like "aaa" are easy to guess. Add more words that are less common. Avoid repeated words and characters.',
      ],
      [
        'Password1234567',
        'is too easy to guess. This is similar to a commonly used password. Add more words that are less common. Capitalize more than the first letter.',
      ],
      [
        'abcdefghijklmnop',
        'is too easy to guess. Common character sequences like "abc" are easy to guess. Add more words that are less common. Avoid common character sequences.',
      ],
      [
        'kim.lowe@example.com1',
        'is too easy to guess. There should not be any personal or page related data. Add more words that are less common.',
      ],
      ['Kim.Lowe@Example.com', 'must not be your email'],
      [
        'passwordpassword',
        'is too easy to guess. Repeated character patterns like "abcabcabc" are easy to guess. Add more words that are less common. Avoid repeated words and characters.',
      ],
      [
        'fifteen letters\u0007x',
        'must not contain control characters (letters, digits, symbols and spaces are all fine)',
      ],
    ];
    for (const [password, message] of cases) {
      const res = await user.set(password);
      expect({ password, status: res.statusCode, body: res.json() }).toEqual({
        password,
        status: 400,
        body: refused(message),
      });
    }
    expect(await user.storedHash()).toBeNull();
  });

  it('accepts long passphrases with spaces and any printing characters, without composition rules, up to 256', async () => {
    const cases = [
      'correct horse battery staple',
      'ünïcödé wörds sïng ïn thé ráïn',
      'ΚαλημέραΚόσμε τρία λόγια',
      `${'tangerine kettle ocelot lantern '.repeat(8)}`.slice(0, 256),
    ];
    for (const password of cases) {
      const user = await invited(t.ctx);
      const res = await user.set(password);
      expect({ password, status: res.statusCode, body: res.body }).toMatchObject({ password, status: 200 });
      expect((await user.signIn(password)).statusCode).toBe(200);
    }
    const long = await invited(t.ctx);
    const res = await long.set('x'.repeat(257));
    expect(res.json()).toEqual(refused('must be at most 256 characters'));
  });

  it('normalises with NFKC: the same characters typed another way are the same password', async () => {
    const user = await invited(t.ctx);
    // U+FB01 (the "fi" ligature) and fullwidth letters are what NFKC folds.
    expect((await user.set('ﬁve ﬁsh swim upstream ｑｕｉｅｔｌｙ')).statusCode).toBe(200);
    expect((await user.signIn('five fish swim upstream quietly')).statusCode).toBe(200);
    expect((await user.signIn('ﬁve ﬁsh swim upstream ｑｕｉｅｔｌｙ')).statusCode).toBe(200);
  });

  it('lets a password set before NFKC normalisation still sign in, and stores it normalised from then on', async () => {
    const user = await invited(t.ctx);
    expect((await user.set('a placeholder passphrase here')).statusCode).toBe(200);
    const argon2 = (await import('argon2')).default;
    const typed = 'ﬁne old ﬁgs grow quietly';
    await t.ctx.db.direct
      .updateTable('users')
      .set({ password_hash: await argon2.hash(typed, { type: argon2.argon2id }) })
      .where('user_id', '=', user.link.user.user_id)
      .execute();
    expect((await user.signIn(typed)).statusCode).toBe(200);
    expect(await argon2.verify((await user.storedHash())!, typed.normalize('NFKC'))).toBe(true);
    expect((await user.signIn('fine old figs grow quietly')).statusCode).toBe(200);
  });
});
