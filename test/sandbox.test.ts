import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { authService } from '../src/modules/auth/auth.service.js';
import { ALL_SCOPES } from '../src/modules/auth/scopes.js';
import { RECORDS } from './support/accounting.js';
import { Api } from './support/api.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';

const ADMIN_TOKEN = 'sandbox-operator-token-0123456789';
const SANDBOX = { SANDBOX: 'true', SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN };
const ACCOUNTS = '/sandbox/v1/accounts';
const faultsUrl = (clientId: string) => `/sandbox/v1/clients/${clientId}/faults`;

/** Every sandbox operation, with a body that would be valid. */
const ROUTES = [
  { method: 'POST', url: ACCOUNTS, payload: {} },
  { method: 'DELETE', url: `${ACCOUNTS}/sbx_x` },
  { method: 'POST', url: `${ACCOUNTS}/sbx_x/reset`, payload: {} },
  { method: 'POST', url: `${ACCOUNTS}/sbx_x/events`, payload: { type: 'integration.connected', object_id: 'int_x' } },
  { method: 'POST', url: `${ACCOUNTS}/sbx_x/advance-time`, payload: { seconds: 60 } },
  { method: 'POST', url: faultsUrl('cli_x'), payload: { kind: '500' } },
  { method: 'DELETE', url: faultsUrl('cli_x') },
] as const;

const operator = (ctx: TestContext) => new Api(ctx.app, ADMIN_TOKEN, '', '');

/** An Api with the token of the sandbox account's client. */
async function clientOf(ctx: TestContext, creds: { client_id: string; client_secret: string; account_id: string }) {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    payload: { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret },
  });
  expect(res.statusCode, res.body).toBe(200);
  return new Api(ctx.app, JSON.parse(res.body).access_token, creds.account_id, creds.client_id);
}

async function newAccount(ctx: TestContext, body: object = {}) {
  const res = await operator(ctx).post(ACCOUNTS, body);
  expect(res.status, res.text).toBe(200);
  return { creds: res.body, api: await clientOf(ctx, res.body) };
}

/** Every record of the account, in the API's order. */
async function allRecords(api: Api): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; text: string; body: any } = await api.get(RECORDS, {
      limit: '500',
      ...(cursor ? { cursor } : {}),
    });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.items);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

const tally = (items: any[], key: (r: any) => string) => {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
};

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

    it('review-states: every record type in every review state, the same for the same seed', async () => {
      const ctx = t.ctx;
      const a = await newAccount(ctx, { scenario: 'review-states', seed: 7 });
      expect(a.creds.scenario).toEqual({
        name: 'review-states',
        seed: 7,
        fields: ['GL Account', 'Department', 'Location', 'Class'].map((name, i) => ({
          svc_id: expect.any(String),
          name,
          remote_id: ['GL_ACCOUNT', 'DEPARTMENT', 'LOCATION', 'CLASS'][i],
          values: 10,
        })),
        records: 76,
      });
      const records = await allRecords(a.api);
      expect(records).toHaveLength(76);
      const pairs = new Set(records.map((r) => `${r.type} ${r.review_status}`));
      expect(pairs.size).toBe(76);
      const fields = (await a.api.get('/v1/fields')).body.items;
      expect(fields.map((f: any) => f.name)).toEqual(['GL Account', 'Department', 'Location', 'Class']);

      const shape = (r: any) =>
        JSON.stringify([r.type, r.review_status, r.amount, r.memo, r.line_items.length, r.last_export_result?.status]);
      const b = await newAccount(ctx, { scenario: 'review-states', seed: 7 });
      const c = await newAccount(ctx, { scenario: 'review-states', seed: 8 });
      const sorted = async (api: Api) => (await allRecords(api)).map(shape).sort();
      expect(await sorted(b.api)).toEqual(records.map(shape).sort());
      expect(await sorted(c.api)).not.toEqual(records.map(shape).sort());
    });

    it('month-of-card-spend: 200 card records of the last 30 days waiting for review or export', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx, { scenario: 'month-of-card-spend', seed: 1 });
      expect(creds.scenario.records).toBe(200);
      const records = await allRecords(api);
      expect(records).toHaveLength(200);
      expect(Object.keys(tally(records, (r) => r.source_type))).toEqual(['CARD']);
      expect(tally(records, (r) => r.review_status)).toEqual({ PREPARE: 67, REVIEW: 67, READY_FOR_EXPORT: 66 });
      const monthAgo = Date.now() - 31 * 24 * 3600 * 1000;
      for (const r of records) expect(Date.parse(r.posted_at)).toBeGreaterThan(monthAgo);
      expect(new Set(records.map((r) => r.type)).size).toBeGreaterThanOrEqual(5);
    });

    it('export-failures: 20 records to export and 10 back in review after a failed export', async () => {
      const ctx = t.ctx;
      const { api } = await newAccount(ctx, { scenario: 'export-failures', seed: 3 });
      const records = await allRecords(api);
      expect(tally(records, (r) => r.review_status)).toEqual({ READY_FOR_EXPORT: 20, REVIEW: 10 });
      for (const r of records.filter((r) => r.review_status === 'REVIEW')) {
        expect(r.last_export_result).toMatchObject({ status: 'FAILURE', error_message: 'Invalid GL account' });
      }
      const ready = (await api.get(RECORDS, { review_status: 'READY_FOR_EXPORT' })).body;
      expect(ready.total_count).toBe(20);
    });

    it('bills-due: 27 bills due around now, three for each day from 10 days overdue to 30 days ahead', async () => {
      const ctx = t.ctx;
      const started = Date.now();
      const { creds, api } = await newAccount(ctx, { scenario: 'bills-due', seed: 5 });
      expect(creds.scenario.records).toBe(27);
      const res = await api.get(RECORDS, { source_type: 'BILL', limit: '500' });
      expect(res.status, res.text).toBe(200);
      const bills = res.body.items;
      expect(bills).toHaveLength(27);
      expect(tally(bills, (r) => r.review_status)).toEqual({ PREPARE: 9, REVIEW: 9, READY_FOR_EXPORT: 9 });
      const DAY_MS = 24 * 3600 * 1000;
      const days = bills
        .map((r: any) => Math.round((Date.parse(r.due_at) - started) / DAY_MS))
        .sort((x: number, y: number) => x - y);
      expect(days).toEqual([-10, -3, -1, 0, 1, 3, 7, 14, 30].flatMap((d) => [d, d, d]));
      for (const r of bills) expect(Date.parse(r.posted_at)).toBeLessThan(Date.parse(r.due_at));
    });

    it('chart-of-accounts-10k: one field with 10,000 values', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx, { scenario: 'chart-of-accounts-10k' });
      expect(creds.scenario.fields).toEqual([
        { svc_id: expect.any(String), name: 'GL Account', remote_id: 'GL_ACCOUNT', values: 10_000 },
      ]);
      const fieldId = creds.scenario.fields[0].svc_id;
      const page = await api.get(`/v1/fields/${fieldId}/values`, { limit: '1000' });
      expect(page.status, page.text).toBe(200);
      expect(page.body.items[0]).toMatchObject({ value: '6000 Travel', remote_id: 'GL_ACCOUNT-1' });
      const last = await api.get(`/v1/fields/${fieldId}/values`, { 'remote_id[]': 'GL_ACCOUNT-10000' });
      expect(last.body.items.map((v: any) => v.value)).toEqual(['105990 Training']);
      expect(creds.scenario.records).toBe(0);
    }, 60_000);

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
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: '429', count: 1 });

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

    it('faults 429, 500 and 503 hit the next N requests of their client only, then end', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx);
      const other = await newAccount(ctx);
      const set = await operator(ctx).post(faultsUrl(creds.client_id), { kind: '429', count: 2, retry_after: 7 });
      expect(set.status, set.text).toBe(200);
      expect(set.body).toEqual({
        client_id: creds.client_id,
        kind: '429',
        count: 2,
        fraction: null,
        delay_ms: 1000,
        retry_after: 7,
      });
      for (let i = 0; i < 2; i++) {
        expect((await other.api.get('/v1/fields')).status).toBe(200);
        const hit = await api.get('/v1/fields');
        expect(hit.status).toBe(429);
        expect(hit.headers['retry-after']).toBe('7');
        expect(hit.body).toEqual(errorBody('RATE_LIMITED'));
      }
      expect((await api.get('/v1/fields')).status).toBe(200);

      await operator(ctx).post(faultsUrl(creds.client_id), { kind: '503', retry_after: 3 });
      const unavailable = await api.get('/v1/fields');
      expect([unavailable.status, unavailable.headers['retry-after']]).toEqual([503, '3']);
      expect(unavailable.body).toEqual(errorBody('SERVICE_UNAVAILABLE'));

      // A 500 on a write: the request never ran, so nothing is stored.
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: '500' });
      const failed = await api.create('/v1/fields', { name: 'X', group: 'ACCOUNTING' });
      expect(failed.status).toBe(500);
      expect(failed.body).toEqual(errorBody('INTERNAL_ERROR'));
      expect((await api.get('/v1/fields')).body.items).toEqual([]);
    });

    it('a fraction lasts until cleared; delay slows the requests by delay_ms', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx);
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: '500', fraction: 1 });
      for (let i = 0; i < 3; i++) expect((await api.get('/v1/fields')).status).toBe(500);
      const cleared = await operator(ctx).request('DELETE', faultsUrl(creds.client_id));
      expect([cleared.status, cleared.body]).toEqual([200, {}]);
      expect((await api.get('/v1/fields')).status).toBe(200);

      // Far apart, so that a busy machine cannot make one look like the other.
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: 'delay', delay_ms: 3000, count: 1 });
      const started = Date.now();
      expect((await api.get('/v1/fields')).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2990);
      const quick = Date.now();
      expect((await api.get('/v1/fields')).status).toBe(200);
      expect(Date.now() - quick).toBeLessThan(2000);
    });

    it('refuses count with fraction (400) and an unknown or revoked client (404)', async () => {
      const ctx = t.ctx;
      const { creds } = await newAccount(ctx);
      const both = await operator(ctx).post(faultsUrl(creds.client_id), { kind: '500', count: 1, fraction: 0.5 });
      expect(both.status).toBe(400);
      expect(both.body.error_code).toBe('INVALID_REQUEST');
      const kind = await operator(ctx).post(faultsUrl(creds.client_id), { kind: '404' });
      expect(kind.status).toBe(400);
      await operator(ctx).request('DELETE', `${ACCOUNTS}/${creds.account_id}`);
      for (const id of [creds.client_id, 'cli_unknown']) {
        const res = await operator(ctx).post(faultsUrl(id), { kind: '500' });
        expect(res.status).toBe(404);
        expect(res.body).toEqual(errorBody('NOT_FOUND', { details: { client_id: id } }));
        expect((await operator(ctx).request('DELETE', faultsUrl(id))).status).toBe(404);
      }
    });

    it('drop_after_commit: the change commits, the answer is lost; a retry with the key is replayed', async () => {
      const ctx = t.ctx;
      const { creds, api } = await newAccount(ctx);
      const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const token = api.token!;
      await operator(ctx).post(faultsUrl(creds.client_id), { kind: 'drop_after_commit' });
      const key = randomUUID();
      const send = () =>
        fetch(`${address}/v1/fields`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' }),
        });
      await expect(send()).rejects.toThrow();
      const stored = (await api.get('/v1/fields')).body.items;
      expect(stored.map((f: any) => f.name)).toEqual(['GL Account']);

      const retry = await send();
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await retry.json()).toEqual(stored[0]);
      expect((await api.get('/v1/fields')).body.items).toEqual(stored);
    });
  },
  SANDBOX,
);
