import path from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { describeEachDialect } from './support/context.js';
import { ROOT } from './support/processes.js';

const ADMIN_TOKEN = 'sandbox-operator-token-0123456789';
const SANDBOX = { SANDBOX: 'true', SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN };

/**
 * Issue 36, 3: what got in an integrator's way when starting a sandbox. A wrong operator token was reported as
 * missing; an empty body to create (or reset) an account answered 400 where defaults were expected; a sandbox used
 * the same default database file as a real server.
 */
it('keeps a sandbox’s default database apart from the real one; DATABASE_URL still decides when set', () => {
  expect(loadConfig({}).database).toEqual({ dialect: 'sqlite', path: path.join(ROOT, 'data', 'svc.sqlite') });
  expect(loadConfig(SANDBOX).database).toEqual({
    dialect: 'sqlite',
    path: path.join(ROOT, 'data', 'svc-sandbox.sqlite'),
  });
  expect(loadConfig({ ...SANDBOX, DATABASE_URL: 'sqlite:/tmp/x.sqlite' }).database).toEqual({
    dialect: 'sqlite',
    path: '/tmp/x.sqlite',
  });
});

describeEachDialect(
  'sandbox: defaults and the operator token',
  (t) => {
    const post = (url: string, headers: Record<string, string>, payload?: string) =>
      t.ctx.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });
    const operator = { authorization: `Bearer ${ADMIN_TOKEN}` };

    it('makes an empty account from no body or an empty one, with or without a Content-Type; resets likewise', async () => {
      const bodies: [Record<string, string>, string | undefined][] = [
        [{}, undefined],
        [{}, ''],
        [{ 'content-type': 'application/json' }, ''],
        [{ 'content-type': 'application/json' }, '{}'],
      ];
      for (const [headers, payload] of bodies) {
        const made = await post('/sandbox/v1/accounts', { ...operator, ...headers }, payload);
        expect({ headers, payload, status: made.statusCode }).toEqual({ headers, payload, status: 200 });
        const account = made.json();
        expect(account.account_id).toMatch(/^sbx_/);
        const reset = await post(`/sandbox/v1/accounts/${account.account_id}/reset`, operator);
        expect(reset.statusCode).toBe(200);
        expect(reset.json()).toMatchObject({
          account_id: account.account_id,
          scenario: { name: 'empty', records: 0, fields: [] },
        });
      }
      // A body that is there is still checked.
      const bad = await post(
        '/sandbox/v1/accounts',
        { ...operator, 'content-type': 'application/json' },
        '{"scenario":"x"}',
      );
      expect([bad.statusCode, bad.json().error_code]).toEqual([400, 'INVALID_REQUEST']);
      const broken = await post('/sandbox/v1/accounts', { ...operator, 'content-type': 'application/json' }, '{');
      expect([broken.statusCode, broken.json().error_code]).toEqual([400, 'INVALID_REQUEST']);
    });

    it('says a wrong operator token is invalid and a missing one missing, both 401, creating nothing', async () => {
      const before = await t.ctx.db.direct.selectFrom('oauth_clients').select('client_id').execute();
      const wrong = await post('/sandbox/v1/accounts', { authorization: 'Bearer not-the-operator-token' });
      expect([wrong.statusCode, wrong.json().error_code]).toEqual([401, 'UNAUTHORIZED']);
      expect(wrong.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(wrong.json().message).not.toMatch(/missing/i);
      const missing = await post('/sandbox/v1/accounts', {});
      expect([missing.statusCode, missing.json().error_code]).toEqual([401, 'UNAUTHORIZED']);
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="svc"');
      expect(await t.ctx.db.direct.selectFrom('oauth_clients').select('client_id').execute()).toEqual(before);
    });
  },
  SANDBOX,
);
