import { afterEach, expect, it } from 'vitest';
import { advanceClock, freezeClock, microsToIso, resetClock } from '../../src/lib/clock.js';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';
import { svc } from '../support/processes.js';

const CLIENTS = '/internal/v1/clients';
const MINUTE = 60_000_000;

const admin = async (ctx: TestContext) => Browser.signIn(ctx.app, await newUser(ctx.db, 'ACCOUNT_ADMIN'));

const issue = async (ctx: TestContext, client: { client_id: string; client_secret: string }) => {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    payload: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token as string;
};

const stored = (ctx: TestContext, id: string) =>
  ctx.db.direct.selectFrom('oauth_clients').selectAll().where('client_id', '=', id).executeTakeFirstOrThrow();

const audited = async (ctx: TestContext, id: string) =>
  (
    await ctx.db.direct
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', id)
      .orderBy('occurred_at')
      .execute()
  ).map((row) => [row.action, JSON.parse(row.details)]);

afterEach(() => resetClock());

describeEachDialect("an API client's name and last use", (t) => {
  it('is named at creation, renamed by PATCH (audited in the same change), and listed with both', async () => {
    const browser = await admin(t.ctx);
    const made = await browser.post(CLIENTS, { name: '  ERP nightly sync ', scopes: ['fields.read'] });
    expect(made.status, made.text).toBe(200);
    expect(made.body.name).toBe('ERP nightly sync');
    const id = made.body.client_id;

    const renamed = await browser.request('PATCH', `${CLIENTS}/${id}`, { body: { name: 'Payroll export' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body).toEqual({
      client_id: id,
      account_id: browser.accountId,
      name: 'Payroll export',
      scopes: ['fields.read'],
      created_at: expect.stringMatching(ISO_MICROS),
      revoked_at: null,
      last_used_at: null,
    });
    // Name and scopes in one request: one transaction, both audited.
    const both = await browser.request('PATCH', `${CLIENTS}/${id}`, {
      body: { name: 'Payroll', scopes: ['fields.read', 'fields.write'] },
    });
    expect([both.status, both.body.name, both.body.scopes]).toEqual([200, 'Payroll', ['fields.read', 'fields.write']]);
    // The same name again changes nothing and records nothing.
    expect((await browser.request('PATCH', `${CLIENTS}/${id}`, { body: { name: 'Payroll' } })).status).toBe(200);

    expect((await browser.get(CLIENTS)).body.items.map((c: any) => [c.client_id, c.name])).toEqual([[id, 'Payroll']]);
    expect((await stored(t.ctx, id)).name).toBe('Payroll');
    expect(await audited(t.ctx, id)).toEqual([
      ['api_client.created', { scopes: ['fields.read'], name: 'ERP nightly sync' }],
      ['api_client.renamed', { name_before: 'ERP nightly sync', name_after: 'Payroll export' }],
      ['api_client.renamed', { name_before: 'Payroll export', name_after: 'Payroll' }],
      ['api_client.scopes_changed', { scopes_before: ['fields.read'], scopes_after: ['fields.read', 'fields.write'] }],
    ]);
  });

  it('refuses an empty change, a long name and scopes the caller may not grant, changing nothing', async () => {
    const api = await t.ctx.as(['account.admin', 'fields.read']);
    const made = await t.ctx.newClient(['fields.read'], api.accountId);
    const url = `${CLIENTS}/${made.client_id}`;
    const empty = await api.request('PATCH', url, { body: {} });
    expect([empty.status, empty.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
    const long = await api.request('PATCH', url, { body: { name: 'x'.repeat(101) } });
    expect([long.status, long.body.details.errors.map((e: any) => e.path)]).toEqual([400, ['/name']]);
    // The rename and the scope beyond the caller's are one request: refused whole.
    const beyond = await api.request('PATCH', url, { body: { name: 'Escalated', scopes: ['webhooks.write'] } });
    expect([beyond.status, beyond.body]).toEqual([
      403,
      errorBody('FORBIDDEN', { details: { scopes_not_held: ['webhooks.write'] } }),
    ]);
    const row = await stored(t.ctx, made.client_id);
    expect([row.name, row.scopes]).toEqual(['', 'fields.read']);
    expect(await audited(t.ctx, made.client_id)).toEqual([['api_client.created', { scopes: ['fields.read'] }]]);
    const badCreate = await api.post(CLIENTS, { name: 'y'.repeat(101), scopes: ['fields.read'] });
    expect(badCreate.status).toBe(400);
  });

  it('records the last use at token issuance, at most once a minute per client', async () => {
    freezeClock();
    const browser = await admin(t.ctx);
    const made = (await browser.post(CLIENTS, { scopes: ['fields.read'] })).body;
    const other = (await browser.post(CLIENTS, { scopes: ['fields.read'] })).body;
    expect((await stored(t.ctx, made.client_id)).last_used_at).toBeNull();

    const token = await issue(t.ctx, made);
    const first = (await stored(t.ctx, made.client_id)).last_used_at;
    expect(first).not.toBeNull();
    // Requests with the token write nothing; another token within the minute writes nothing either.
    const fields = await t.ctx.app.inject({ url: '/v1/fields', headers: { authorization: `Bearer ${token}` } });
    expect(fields.statusCode).toBe(200);
    advanceClock(MINUTE - 1_000);
    await issue(t.ctx, made);
    expect((await stored(t.ctx, made.client_id)).last_used_at).toBe(first);
    expect((await stored(t.ctx, other.client_id)).last_used_at).toBeNull();

    advanceClock(2_000);
    await issue(t.ctx, made);
    const second = (await stored(t.ctx, made.client_id)).last_used_at!;
    expect(second - first!).toBeGreaterThanOrEqual(MINUTE);
    const listed = (await browser.get(CLIENTS)).body.items.find((c: any) => c.client_id === made.client_id);
    expect(listed.last_used_at).toBe(microsToIso(second));
    // A refused secret is no use.
    const refused = await t.ctx.app.inject({
      method: 'POST',
      url: '/oauth2/token',
      payload: { grant_type: 'client_credentials', client_id: other.client_id, client_secret: 'svc_cs_wrong' },
    });
    expect(refused.statusCode).toBe(401);
    expect((await stored(t.ctx, other.client_id)).last_used_at).toBeNull();
  });

  it('svc clients create --name and svc clients rename name a client; mistakes exit 2', async () => {
    const env = { DATABASE_URL: t.ctx.database.url };
    const made = await svc(['clients', 'create', '--account', 'acme', '--scopes', 'fields.read', '--name', 'CLI'], env);
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).client_id;
    expect(JSON.parse(made.stdout).name).toBe('CLI');
    const renamed = await svc(['clients', 'rename', id, '--name', 'Nightly'], env);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ client_id: id, name: 'Nightly', scopes: ['fields.read'] });
    const missing = await svc(['clients', 'rename', id], env);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('--name is required')]);
    const long = await svc(['clients', 'rename', id, '--name', 'z'.repeat(101)], env);
    expect(long.code).toBe(2);
    expect((await stored(t.ctx, id)).name).toBe('Nightly');
  });
});
