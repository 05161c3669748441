import { expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { authService } from '../src/modules/auth/auth.service.js';
import { ALL_SCOPES } from '../src/modules/auth/scopes.js';
import { RECORDS } from './support/accounting.js';
import { newUser } from './support/console.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import {
  ACCOUNTS,
  ADMIN_TOKEN,
  allRecords,
  clientOf,
  faultsUrl,
  newAccount,
  operator,
  SANDBOX,
  tally,
} from './support/sandbox.js';

/** Every sandbox operation, with a body that would be valid. */
const ROUTES = [
  { method: 'POST', url: ACCOUNTS, payload: {} },
  { method: 'DELETE', url: `${ACCOUNTS}/sbx_x` },
  { method: 'POST', url: `${ACCOUNTS}/sbx_x/reset`, payload: {} },
  { method: 'POST', url: `${ACCOUNTS}/sbx_x/events`, payload: { type: 'integration.connected', object_id: 'int_x' } },
  { method: 'POST', url: `${ACCOUNTS}/sbx_x/advance-time`, payload: { seconds: 60 } },
  { method: 'POST', url: faultsUrl('cli_x'), payload: { kind: '500' } },
  { method: 'GET', url: faultsUrl('cli_x') },
  { method: 'DELETE', url: faultsUrl('cli_x') },
  { method: 'POST', url: '/sandbox/v1/clients/cli_x/tokens/expire', payload: {} },
] as const;

it('SANDBOX is true or false, and wants an operator token of 16+ characters when true', () => {
  expect(loadConfig({}).sandbox).toBe(false);
  expect(loadConfig(SANDBOX)).toMatchObject({ sandbox: true, sandboxAdminToken: ADMIN_TOKEN });
  expect(() => loadConfig({ SANDBOX: 'yes' })).toThrow(/SANDBOX: must be true or false/);
  expect(() => loadConfig({ SANDBOX: 'true' })).toThrow(/SANDBOX_ADMIN_TOKEN: must be set/);
  expect(() => loadConfig({ SANDBOX: 'true', SANDBOX_ADMIN_TOKEN: 'short' })).toThrow(/SANDBOX_ADMIN_TOKEN/);
  // The token means nothing without SANDBOX=true.
  expect(loadConfig({ SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN }).sandboxAdminToken).toBeNull();
});

describeEachDialect('a server without SANDBOX=true', (t) => {
  it('answers 404 on every sandbox route, the operator token notwithstanding, and lists none', async () => {
    const ctx = t.ctx;
    for (const route of ROUTES) {
      const res = await ctx.app.inject({ ...route, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(404);
      expect(res.json()).toEqual(errorBody('NOT_FOUND'));
    }
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.includes('sandbox'))).toEqual([]);
    expect(JSON.stringify(doc)).not.toMatch(/sandbox/i);
  });

  it('applies no fault to any request', async () => {
    const ctx = t.ctx;
    const api = await ctx.as(['fields.read']);
    expect((await api.get('/v1/fields')).status).toBe(200);
  });
});

describeEachDialect(
  'sandbox mode',
  (t) => {
    it('lists the sandbox operations in its OpenAPI document', async () => {
      const ctx = t.ctx;
      const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(
        Object.keys(doc.paths)
          .filter((p) => p.startsWith('/sandbox/'))
          .sort(),
      ).toEqual([
        '/sandbox/v1/accounts',
        '/sandbox/v1/accounts/{account_id}',
        '/sandbox/v1/accounts/{account_id}/advance-time',
        '/sandbox/v1/accounts/{account_id}/events',
        '/sandbox/v1/accounts/{account_id}/reset',
        '/sandbox/v1/clients/{client_id}/faults',
        '/sandbox/v1/clients/{client_id}/tokens/expire',
      ]);
    });

    it('answers only the operator token: no account is made without it, nor with a client token', async () => {
      const ctx = t.ctx;
      const before = (await authService.listClients(ctx.db, null)).length;
      const client = await ctx.as(['account.admin']);
      for (const authorization of [undefined, 'Bearer wrong', `Bearer ${ADMIN_TOKEN}x`, `Bearer ${client.token}`]) {
        for (const route of ROUTES) {
          const res = await ctx.app.inject({ ...route, headers: authorization ? { authorization } : {} });
          expect(res.statusCode, `${route.method} ${route.url} ${authorization}`).toBe(401);
          expect(res.json()).toEqual(errorBody('UNAUTHORIZED'));
        }
      }
      expect((await authService.listClients(ctx.db, null)).length).toBe(before + 1);
    });

    it('makes an empty account with a client of every scope in one call; its credentials work', async () => {
      const ctx = t.ctx;
      const res = await operator(ctx).post(ACCOUNTS, {});
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        account_id: expect.stringMatching(/^sbx_[0-9a-z]{26}$/),
        client_id: expect.stringMatching(/^cli_/),
        client_secret: expect.stringMatching(/^svc_cs_/),
        scopes: [...ALL_SCOPES],
        scenario: { name: 'empty', seed: expect.any(Number), fields: [], records: 0 },
      });
      const stored = await authService.listClients(ctx.db, res.body.account_id);
      expect(stored.map((c) => [c.client_id, c.revoked_at])).toEqual([[res.body.client_id, null]]);
      const api = await clientOf(ctx, res.body);
      expect((await api.get('/v1/fields')).body).toEqual({ items: [], next_cursor: null });
      expect((await api.get(RECORDS)).body).toMatchObject({ items: [], total_count: 0 });
    });

    it('rejects an unknown scenario, a bad seed and unknown members (400), making nothing', async () => {
      const ctx = t.ctx;
      const before = (await authService.listClients(ctx.db, null)).length;
      for (const body of [{ scenario: 'nope' }, { seed: -1 }, { seed: 1.5 }, { account_id: 'mine' }]) {
        const res = await operator(ctx).post(ACCOUNTS, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error_code).toBe('INVALID_REQUEST');
      }
      expect((await authService.listClients(ctx.db, null)).length).toBe(before);
    });

    it('closes an account: its clients are revoked, their tokens stop at once; again or unknown → 404', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx);
      const res = await operator(ctx).request('DELETE', `${ACCOUNTS}/${creds.account_id}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({});
      expect((await api.get('/v1/fields')).status).toBe(401);
      const stored = await authService.listClients(ctx.db, creds.account_id);
      expect(stored.every((c) => c.revoked_at !== null)).toBe(true);
      for (const id of [creds.account_id, 'sbx_unknown']) {
        const again = await operator(ctx).request('DELETE', `${ACCOUNTS}/${id}`);
        expect(again.status).toBe(404);
        expect(again.body).toEqual(errorBody('NOT_FOUND', { details: { account_id: id } }));
      }
    });

    it('resets an account to a scenario: its data goes, its credentials and fault stay; closed or unknown → 404', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx, { scenario: 'review-states', seed: 1 });
      const oldFields = (await api.get('/v1/fields')).body.items.map((f: any) => f.svc_id);
      const before = await allRecords(api);
      const lastSeen = before
        .map((r) => r.updated_at)
        .sort()
        .at(-1);
      // A stored export mapping names the account's fields: the reset forgets it with them.
      const mapping = await api.put('/internal/v1/accounting/export-mapping', { account_field_id: oldFields[0] });
      expect(mapping.status, mapping.text).toBe(200);
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: '429', count: 1 });
      // A console user's draft of one of its records (as the record page keeps it), and one of another account's.
      const mine = await newUser(ctx.db, 'BOOKKEEPER', creds.account_id);
      const theirs = await newUser(ctx.db, 'BOOKKEEPER');
      const draft = { record_id: before[0].id, version: 1, lines_json: '[]', updated_at: 1 };
      await ctx.db.direct
        .insertInto('record_drafts')
        .values([mine, theirs].map((u) => ({ account_id: u.account_id, user_id: u.user_id, ...draft })))
        .execute();

      const res = await operator(ctx).post(`${ACCOUNTS}/${creds.account_id}/reset`, {
        scenario: 'export-failures',
        seed: 3,
      });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({
        account_id: creds.account_id,
        scenario: {
          name: 'export-failures',
          seed: 3,
          fields: ['GL Account', 'Department', 'Location', 'Class'].map((name, i) => ({
            svc_id: expect.any(String),
            name,
            remote_id: ['GL_ACCOUNT', 'DEPARTMENT', 'LOCATION', 'CLASS'][i],
            values: 10,
          })),
          records: 30,
        },
      });
      const drafts = await ctx.db.direct.selectFrom('record_drafts').select('account_id').execute();
      expect(drafts).toEqual([{ account_id: theirs.account_id }]);
      const mappings = await ctx.db.direct
        .selectFrom('account_export_mappings')
        .select('account_id')
        .where('account_id', '=', creds.account_id)
        .execute();
      expect(mappings).toEqual([]);
      // The fault stayed with the client; then the same token works, and sees the new data alone.
      expect((await api.get('/v1/fields')).status).toBe(429);
      const records = await allRecords(api);
      expect(tally(records, (r) => r.review_status)).toEqual({ READY_FOR_EXPORT: 20, REVIEW: 10 });
      expect((await api.get(RECORDS)).body.total_count).toBe(30);
      const fields = (await api.get('/v1/fields')).body.items;
      expect(fields.map((f: any) => f.svc_id)).toEqual(res.body.scenario.fields.map((f: any) => f.svc_id));
      expect(fields.some((f: any) => oldFields.includes(f.svc_id))).toBe(false);
      for (const id of [before[0].id, oldFields[0]]) {
        const url = id.startsWith('accr_') ? `${RECORDS}/${id}` : `/v1/fields/${id}`;
        expect((await api.get(url)).status).toBe(404);
      }
      // A poller that saw the old records sees every new one after its last updated_at.
      const polled = await api.get(RECORDS, { 'updated_at[gt]': lastSeen, limit: '500' });
      expect(polled.body.total_count).toBe(30);

      // Reset to nothing, then a closed and an unknown account.
      const emptied = await operator(ctx).post(`${ACCOUNTS}/${creds.account_id}/reset`, {});
      expect(emptied.body.scenario).toEqual({ name: 'empty', seed: expect.any(Number), fields: [], records: 0 });
      expect((await api.get(RECORDS)).body).toMatchObject({ items: [], total_count: 0 });
      await operator(ctx).request('DELETE', `${ACCOUNTS}/${creds.account_id}`);
      for (const id of [creds.account_id, 'sbx_unknown']) {
        const again = await operator(ctx).post(`${ACCOUNTS}/${id}/reset`, {});
        expect(again.status).toBe(404);
        expect(again.body).toEqual(errorBody('NOT_FOUND', { details: { account_id: id } }));
      }
    });
  },
  SANDBOX,
);
