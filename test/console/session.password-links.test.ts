import { expect, it } from 'vitest';
import { Browser, PASSWORD, SESSION, signIn } from '../support/console.js';
import { describeEachDialect, newAccountId } from '../support/context.js';
import { errorBody } from '../support/expect.js';

describeEachDialect('console: password links', (t) => {
  it('sets the first password once; a refused password leaves the link usable; reset ends sessions', async () => {
    const { usersService } = await import('../../src/modules/users/users.service.js');
    const accountId = newAccountId();
    const link = await usersService.create(t.ctx.db, { accountId, email: 'Ann@Example.com', role: 'BOOKKEEPER' });
    expect(link.user).toMatchObject({ email: 'ann@example.com', status: 'INVITED', role: 'BOOKKEEPER' });
    const set = (password: string, token = link.token) =>
      t.ctx.app.inject({ method: 'POST', url: '/auth/password', payload: { token, password } });

    const short = await set('too short');
    expect(short.statusCode).toBe(400);
    expect(JSON.parse(short.body)).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '/password',
              message:
                'must be at least 15 characters: a few unrelated words make a long password that is easy to remember',
            },
          ],
        },
      }),
    );
    expect((await set('ann@example.com')).statusCode).toBe(400);
    const ok = await set(PASSWORD);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(JSON.parse(ok.body).user).toMatchObject({ status: 'ACTIVE' });
    const again = await set('another good password');
    expect(again.statusCode).toBe(400);
    expect(JSON.parse(again.body)).toEqual(errorBody('INVALID_PASSWORD_LINK'));
    expect((await signIn(t.ctx, 'ann@example.com', 'another good password')).statusCode).toBe(401);

    const browser = await Browser.signIn(t.ctx.app, {
      email: 'ann@example.com',
      password: PASSWORD,
      account_id: accountId,
      user_id: link.user.user_id,
    });
    const reset = await usersService.resetPassword(t.ctx.db, link.user.user_id);
    expect((await browser.get(SESSION)).status).toBe(401);
    expect((await signIn(t.ctx, 'ann@example.com', PASSWORD)).statusCode).toBe(401);
    expect((await set('a brand new password', reset.token)).statusCode).toBe(200);
    expect((await signIn(t.ctx, 'ann@example.com', 'a brand new password')).statusCode).toBe(200);

    // Two requests racing with one link: one sets the password.
    const race = await usersService.resetPassword(t.ctx.db, link.user.user_id);
    const both = await Promise.all([
      set('first racing password', race.token),
      set('second racing password', race.token),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });

  it('refuses a second user with the same email, whatever its case', async () => {
    const { usersService } = await import('../../src/modules/users/users.service.js');
    await usersService.create(t.ctx.db, { accountId: newAccountId(), email: 'dup@example.com', role: 'READ_ONLY' });
    await expect(
      usersService.create(t.ctx.db, { accountId: newAccountId(), email: 'DUP@example.com', role: 'READ_ONLY' }),
    ).rejects.toMatchObject({ code: 'CONFLICT', status: 409 });
  });
});
