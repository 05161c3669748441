import { expect, it } from 'vitest';
import { describeEachDialect, newAccountId } from '../support/context.js';
import { ISO_MICROS } from '../support/expect.js';
import { Browser } from '../support/console.js';
import { enrolTotp } from '../support/mfa.js';
import { svc } from '../support/processes.js';

describeEachDialect(
  'svc users',
  (t) => {
    const env = () => ({ DATABASE_URL: t.ctx.database.url, PUBLIC_URL: 'https://svc.example.com/' });
    const signIn = (email: string, password: string) =>
      t.ctx.app.inject({ method: 'POST', url: '/auth/session', payload: { email, password } });
    const setPassword = (link: string, password: string) =>
      t.ctx.app.inject({
        method: 'POST',
        url: '/auth/password',
        payload: { token: new URLSearchParams(new URL(link).hash.slice(1)).get('token'), password },
      });

    it('creates a user with a one-time link (no password anywhere), lists, resets and disables them', async () => {
      const account = newAccountId();
      const created = await svc(
        ['users', 'create', '--account', account, '--email', 'Kim@Example.com', '--role', 'BOOKKEEPER'],
        env(),
      );
      expect(created.code).toBe(0);
      expect(created.stderr).toMatch(/^svc: database (sqlite|postgres)[^\n]*\n$/);
      const user = JSON.parse(created.stdout);
      expect(user).toEqual({
        user_id: expect.stringMatching(/^usr_[0-9a-z]{26}$/),
        account_id: account,
        email: 'kim@example.com',
        role: 'BOOKKEEPER',
        status: 'INVITED',
        mfa_enrolled: false,
        created_at: expect.stringMatching(ISO_MICROS),
        password_link: expect.stringMatching(
          /^https:\/\/svc\.example\.com\/console\/set-password#token=svc_pl_[A-Za-z0-9_-]{43}$/,
        ),
        password_link_expires_at: expect.stringMatching(ISO_MICROS),
      });
      // The link's token is stored only as a hash.
      const links = await t.ctx.db.direct
        .selectFrom('user_password_links')
        .selectAll()
        .where('user_id', '=', user.user_id)
        .execute();
      expect(links).toHaveLength(1);
      expect(JSON.stringify(links)).not.toContain(
        new URLSearchParams(new URL(user.password_link).hash.slice(1)).get('token'),
      );

      expect((await setPassword(user.password_link, 'kims first password')).statusCode).toBe(200);
      expect((await signIn('kim@example.com', 'kims first password')).statusCode).toBe(200);

      const listed = await svc(['users', 'list', '--account', account], env());
      expect(
        listed.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual(
        [{ ...user, status: 'ACTIVE', password_link: undefined, password_link_expires_at: undefined }].map(
          ({ password_link: _l, password_link_expires_at: _e, ...rest }) => rest,
        ),
      );

      const reset = await svc(['users', 'reset-password', user.user_id], env());
      expect(reset.code).toBe(0);
      const again = JSON.parse(reset.stdout);
      expect(again.status).toBe('INVITED');
      expect(again.password_link).not.toBe(user.password_link);
      expect((await signIn('kim@example.com', 'kims first password')).statusCode).toBe(401);
      expect((await setPassword(user.password_link, 'an old link password')).statusCode).toBe(400);
      expect((await setPassword(again.password_link, 'kims second password')).statusCode).toBe(200);

      const disabled = await svc(['users', 'disable', user.user_id], env());
      expect([disabled.code, JSON.parse(disabled.stdout).status]).toEqual([0, 'DISABLED']);
      expect((await signIn('kim@example.com', 'kims second password')).statusCode).toBe(401);
    });

    it('exits 2 naming the problem for a bad role, email, duplicate or unknown user, and creates nothing', async () => {
      const account = newAccountId();
      const cases: [string[], RegExp][] = [
        [['users', 'create', '--account', account, '--email', 'a@example.com', '--role', 'OWNER'], /role/],
        [['users', 'create', '--account', account, '--email', 'not-an-email', '--role', 'READ_ONLY'], /email/],
        [['users', 'create', '--account', account, '--role', 'READ_ONLY'], /--email is required/],
        [
          [
            'users',
            'create',
            '--account',
            account,
            '--email',
            'a@example.com',
            '--role',
            'READ_ONLY',
            '--password',
            'x',
          ],
          /password/,
        ],
        [['users', 'disable', 'usr_nope'], /no user usr_nope/],
        [['users', 'reset-password'], /exactly one user_id/],
        [['users', 'reset-mfa', 'usr_nope'], /no user usr_nope/],
        [['users', 'reset-mfa'], /exactly one user_id/],
      ];
      for (const [args, message] of cases) {
        const res = await svc(args, env());
        expect(res.code, args.join(' ')).toBe(2);
        expect(res.stderr).toMatch(message);
        expect(res.stdout).toBe('');
      }
      expect(await t.ctx.db.direct.selectFrom('users').selectAll().where('account_id', '=', account).execute()).toEqual(
        [],
      );
      const first = await svc(
        ['users', 'create', '--account', account, '--email', 'b@example.com', '--role', 'READ_ONLY'],
        env(),
      );
      expect(first.code).toBe(0);
      const dup = await svc(
        ['users', 'create', '--account', newAccountId(), '--email', 'B@example.com', '--role', 'READ_ONLY'],
        env(),
      );
      expect([dup.code, dup.stderr]).toEqual([2, expect.stringMatching(/b@example\.com exists already/)]);
    });

    it("resets a user's two-step sign-in (a lost phone): authenticator and codes gone, sessions ended", async () => {
      const account = newAccountId();
      const created = JSON.parse(
        (
          await svc(
            ['users', 'create', '--account', account, '--email', `lee.${t.dialect}@example.com`, '--role', 'READ_ONLY'],
            env(),
          )
        ).stdout,
      );
      expect((await setPassword(created.password_link, 'lees chosen passphrase')).statusCode).toBe(200);
      const user = { ...created, password: 'lees chosen passphrase' };
      const browser = await Browser.signIn(t.ctx.app, user);
      await enrolTotp(browser);
      expect(JSON.parse((await svc(['users', 'list', '--account', account], env())).stdout).mfa_enrolled).toBe(true);

      const reset = await svc(['users', 'reset-mfa', user.user_id], env());
      expect(reset.code, reset.stderr).toBe(0);
      expect(JSON.parse(reset.stdout)).toMatchObject({ user_id: user.user_id, mfa_enrolled: false, status: 'ACTIVE' });
      for (const table of ['user_totp', 'user_recovery_codes', 'user_sessions'] as const) {
        const rows = await t.ctx.db.direct
          .selectFrom(table)
          .select('user_id')
          .where('user_id', '=', user.user_id)
          .execute();
        expect({ table, rows }).toEqual({ table, rows: [] });
      }
      expect((await browser.get('/auth/session')).status).toBe(401);
      expect((await Browser.signIn(t.ctx.app, user)).step).toBe('SIGNED_IN');
    });
  },
  {},
  // The CLI runs the services the server runs, tested per dialect through HTTP: SQLite alone here.
  { only: 'sqlite' },
);
