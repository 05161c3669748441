import { expect, it } from 'vitest';
import { Browser, newUser } from '../support/console.js';
import { describeEachDialect, type TestContext } from '../support/context.js';
import { errorBody, ISO_MICROS } from '../support/expect.js';

const CLIENTS = '/internal/v1/clients';

async function admin(ctx: TestContext, role: 'ACCOUNT_ADMIN' | 'BOOKKEEPER' = 'ACCOUNT_ADMIN') {
  const user = await newUser(ctx.db, role);
  return Browser.signIn(ctx.app, user);
}

const tokenFor = (ctx: TestContext, id: string, secret: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/oauth2/token',
    payload: { grant_type: 'client_credentials', client_id: id, client_secret: secret },
  });

const storedClients = (ctx: TestContext, accountId: string) =>
  ctx.db.direct.selectFrom('oauth_clients').selectAll().where('account_id', '=', accountId).execute();

describeEachDialect('API clients of an account (account.admin)', (t) => {
  it('creates a client whose secret is shown once, lists it without the secret, and revokes it', async () => {
    const browser = await admin(t.ctx);
    const created = await browser.post(CLIENTS, { scopes: ['accounting.record.read', 'accounting.record.write'] });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toEqual({
      client_id: expect.stringMatching(/^cli_[0-9a-z]{26}$/),
      client_secret: expect.stringMatching(/^svc_cs_[A-Za-z0-9_-]{43}$/),
      account_id: browser.accountId,
      name: '',
      scopes: ['accounting.record.read', 'accounting.record.write'],
    });
    const { client_id, client_secret } = created.body;
    expect(JSON.stringify(await storedClients(t.ctx, browser.accountId))).not.toContain(client_secret);
    const token = await tokenFor(t.ctx, client_id, client_secret);
    expect(token.statusCode).toBe(200);
    const bearer = { authorization: `Bearer ${token.json().access_token}` };

    const listed = await browser.get(CLIENTS);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      items: [
        {
          client_id,
          account_id: browser.accountId,
          name: '',
          scopes: ['accounting.record.read', 'accounting.record.write'],
          created_at: expect.stringMatching(ISO_MICROS),
          revoked_at: null,
          // A token was issued above.
          last_used_at: expect.stringMatching(ISO_MICROS),
        },
      ],
    });
    expect(listed.text).not.toContain('svc_cs_');

    const revoked = await browser.delete(`${CLIENTS}/${client_id}`);
    expect([revoked.status, revoked.body]).toEqual([200, {}]);
    expect((await t.ctx.app.inject({ method: 'GET', url: '/v3/accounting/records', headers: bearer })).statusCode).toBe(
      401,
    );
    expect((await tokenFor(t.ctx, client_id, client_secret)).statusCode).toBe(401);
    expect((await browser.get(CLIENTS)).body.items[0].revoked_at).toMatch(ISO_MICROS);
    const again = await browser.delete(`${CLIENTS}/${client_id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual(errorBody('NOT_FOUND', { details: { client_id } }));
  });

  it("refuses another account's clients, a role without account.admin, an Idempotency-Key and unknown scopes", async () => {
    const mine = await admin(t.ctx);
    const theirs = await admin(t.ctx);
    const other = (await theirs.post(CLIENTS, { scopes: ['fields.read'] })).body;
    expect((await mine.delete(`${CLIENTS}/${other.client_id}`)).status).toBe(404);
    expect((await mine.get(CLIENTS)).body.items).toEqual([]);
    expect((await tokenFor(t.ctx, other.client_id, other.client_secret)).statusCode).toBe(200);

    const bookkeeper = await admin(t.ctx, 'BOOKKEEPER');
    const forbidden = await bookkeeper.post(CLIENTS, { scopes: ['fields.read'] });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(
      errorBody('FORBIDDEN', {
        message: 'Your role (BOOKKEEPER) does not allow this operation.',
        details: { role: 'BOOKKEEPER', required_scopes: ['account.admin'] },
      }),
    );
    expect((await bookkeeper.get(CLIENTS)).status).toBe(403);

    const keyed = await mine.post(CLIENTS, { scopes: ['fields.read'] }, { 'idempotency-key': crypto.randomUUID() });
    expect(keyed.status).toBe(400);
    expect(keyed.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/headers/idempotency-key', message: 'is not accepted by this operation' }] },
      }),
    );
    const unknown = await mine.post(CLIENTS, { scopes: ['everything'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.errors[0].path).toBe('/scopes/0');
    const none = await mine.post(CLIENTS, { scopes: [] });
    expect(none.status).toBe(400);
    expect(await storedClients(t.ctx, mine.accountId)).toEqual([]);
  });

  it('is open to an API client with account.admin too, which grants only scopes it holds', async () => {
    const api = await t.ctx.as(['account.admin', 'fields.read']);
    const beyond = await api.post(CLIENTS, { scopes: ['fields.read', 'accounting.record.admin', 'fields.write'] });
    expect(beyond.status).toBe(403);
    expect(beyond.body).toEqual(
      errorBody('FORBIDDEN', { details: { scopes_not_held: ['accounting.record.admin', 'fields.write'] } }),
    );
    const created = await api.post(CLIENTS, { scopes: ['fields.read'] });
    expect(created.status, created.text).toBe(200);
    expect(created.headers['cache-control']).toBe('no-store');
    expect((await api.get(CLIENTS)).body.items.map((c: any) => c.client_id)).toEqual(
      [api.clientId, created.body.client_id].sort(),
    );
  });
});
