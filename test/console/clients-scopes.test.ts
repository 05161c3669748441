import { expect, it } from 'vitest';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';
import { svc } from '../support/processes.js';

const CLIENTS = '/internal/v1/clients';

async function admin(ctx: TestContext, role: 'ACCOUNT_ADMIN' | 'BOOKKEEPER' = 'ACCOUNT_ADMIN') {
  return Browser.signIn(ctx.app, await newUser(ctx.db, role));
}

async function tokenOf(ctx: TestContext, client: { client_id: string; client_secret: string }): Promise<string> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    payload: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().access_token;
}

const statusWith = async (ctx: TestContext, token: string, url: string) =>
  (await ctx.app.inject({ url, headers: { authorization: `Bearer ${token}` } })).statusCode;

const storedClient = (ctx: TestContext, id: string) =>
  ctx.db.direct.selectFrom('oauth_clients').selectAll().where('client_id', '=', id).executeTakeFirstOrThrow();

const auditOf = (ctx: TestContext, id: string) =>
  ctx.db.direct
    .selectFrom('audit_events')
    .selectAll()
    .where('target_id', '=', id)
    .where('action', '=', 'api_client.scopes_changed')
    .orderBy('occurred_at')
    .execute();

describeEachDialect("changing an API client's scopes (account.admin)", (t) => {
  it('narrows live tokens at once, widens only new ones, and audits the change', async () => {
    const user = await newUser(t.ctx.db, 'ACCOUNT_ADMIN');
    const browser = await Browser.signIn(t.ctx.app, user);
    const client = (await browser.post(CLIENTS, { scopes: ['fields.read', 'field_values.read'] })).body;
    const before = await tokenOf(t.ctx, client);
    expect(await statusWith(t.ctx, before, '/v1/fields')).toBe(200);

    const changed = await browser.request('PATCH', `${CLIENTS}/${client.client_id}`, {
      body: { scopes: ['field_values.read', 'webhooks.read'] },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({
      client_id: client.client_id,
      account_id: browser.accountId,
      name: '',
      scopes: ['field_values.read', 'webhooks.read'],
      created_at: expect.stringMatching(ISO_MICROS),
      revoked_at: null,
      last_used_at: expect.stringMatching(ISO_MICROS),
    });
    expect((await storedClient(t.ctx, client.client_id)).scopes).toBe('field_values.read webhooks.read');
    expect((await browser.get(CLIENTS)).body.items[0].scopes).toEqual(['field_values.read', 'webhooks.read']);

    // The token issued before lost fields.read at once; it did not gain webhooks.read. A new token has both.
    expect(await statusWith(t.ctx, before, '/v1/fields')).toBe(403);
    expect(await statusWith(t.ctx, before, '/v1/webhooks')).toBe(403);
    const after = await tokenOf(t.ctx, client);
    expect(await statusWith(t.ctx, after, '/v1/webhooks')).toBe(200);

    // Every scope a token held taken away: the token stops working (401), as after a revocation.
    const third = await browser.request('PATCH', `${CLIENTS}/${client.client_id}`, {
      body: { scopes: ['fields.read'] },
    });
    expect(third.status).toBe(200);
    expect(await statusWith(t.ctx, after, '/v1/fields')).toBe(401);
    expect(await statusWith(t.ctx, await tokenOf(t.ctx, client), '/v1/fields')).toBe(200);

    const audited = await auditOf(t.ctx, client.client_id);
    expect(audited.map((row) => [row.actor_type, row.actor_id, JSON.parse(row.details)])).toEqual([
      [
        'user',
        user.user_id,
        { scopes_before: ['fields.read', 'field_values.read'], scopes_after: ['field_values.read', 'webhooks.read'] },
      ],
      ['user', user.user_id, { scopes_before: ['field_values.read', 'webhooks.read'], scopes_after: ['fields.read'] }],
    ]);
  });

  it("refuses another account's client, a revoked one, a role without account.admin and bad scopes, changing nothing", async () => {
    const mine = await admin(t.ctx);
    const theirs = await admin(t.ctx);
    const other = (await theirs.post(CLIENTS, { scopes: ['fields.read'] })).body;
    const foreign = await mine.request('PATCH', `${CLIENTS}/${other.client_id}`, {
      body: { scopes: ['fields.write'] },
    });
    expect([foreign.status, foreign.body]).toEqual([
      404,
      errorBody('NOT_FOUND', { details: { client_id: other.client_id } }),
    ]);
    expect((await storedClient(t.ctx, other.client_id)).scopes).toBe('fields.read');

    const own = (await mine.post(CLIENTS, { scopes: ['fields.read'] })).body;
    const url = `${CLIENTS}/${own.client_id}`;
    for (const [body, path] of [
      [{ scopes: [] }, '/scopes'],
      [{ scopes: ['everything'] }, '/scopes/0'],
      [{ scopes: ['fields.read', 'fields.read'] }, '/scopes'],
      [{ scopes: ['fields.read'], client_id: 'cli_x' }, '/client_id'],
    ] as const) {
      const refused = await mine.request('PATCH', url, { body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error_code).toBe('INVALID_REQUEST');
      expect(refused.body.details.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const bookkeeper = await admin(t.ctx, 'BOOKKEEPER');
    const forbidden = await bookkeeper.request('PATCH', url, { body: { scopes: ['fields.write'] } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(
      errorBody('FORBIDDEN', { details: { role: 'BOOKKEEPER', required_scopes: ['account.admin'] } }),
    );
    expect((await storedClient(t.ctx, own.client_id)).scopes).toBe('fields.read');

    expect((await mine.delete(url)).status).toBe(200);
    const revoked = await mine.request('PATCH', url, { body: { scopes: ['fields.write'] } });
    expect(revoked.status).toBe(404);
    expect(await auditOf(t.ctx, own.client_id)).toEqual([]);
  });

  it('lets an API client with account.admin add only scopes it holds, keep others, and replay one key', async () => {
    const api = await t.ctx.as(['account.admin', 'fields.read']);
    const browser = await admin(t.ctx);
    // Made by an admin user in another account would be 404: this one is made in the API client's account.
    const made = await t.ctx.newClient(['fields.read', 'accounting.record.admin'], api.accountId);
    const url = `${CLIENTS}/${made.client_id}`;
    const beyond = await api.request('PATCH', url, { body: { scopes: ['fields.read', 'webhooks.write'] } });
    expect(beyond.status).toBe(403);
    expect(beyond.body).toEqual(errorBody('FORBIDDEN', { details: { scopes_not_held: ['webhooks.write'] } }));
    expect((await storedClient(t.ctx, made.client_id)).scopes).toBe('fields.read accounting.record.admin');

    // accounting.record.admin is not the caller's, but the client has it already: it may stay.
    const key = { 'idempotency-key': crypto.randomUUID() };
    const body = { scopes: ['accounting.record.admin'] };
    const kept = await api.request('PATCH', url, { body, headers: key });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.scopes).toEqual(['accounting.record.admin']);
    const replayed = await api.request('PATCH', url, { body, headers: key });
    expect([replayed.status, replayed.body]).toEqual([200, kept.body]);
    expect(await auditOf(t.ctx, made.client_id)).toHaveLength(1);
    expect((await browser.request('PATCH', url, { body })).status).toBe(404);
  });
  it('svc clients scopes replaces them and prints the client; mistakes exit 2 and change nothing', async () => {
    const env = { DATABASE_URL: t.ctx.database.url };
    const creds = await t.ctx.newClient(['fields.read']);
    const changed = await svc(['clients', 'scopes', creds.client_id, '--scopes', 'fields.write,audit.read'], env);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({
      client_id: creds.client_id,
      scopes: ['fields.write', 'audit.read'],
    });
    expect((await storedClient(t.ctx, creds.client_id)).scopes).toBe('fields.write audit.read');
    const unknown = await svc(['clients', 'scopes', 'cli_nothing', '--scopes', 'fields.read'], env);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('no active client cli_nothing')]);
    const bad = await svc(['clients', 'scopes', creds.client_id, '--scopes', 'everything'], env);
    expect(bad.code).toBe(2);
    const missing = await svc(['clients', 'scopes', creds.client_id], env);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('--scopes is required')]);
    expect((await storedClient(t.ctx, creds.client_id)).scopes).toBe('fields.write audit.read');
  });
});
