import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { storedTokens } from '../support/stored.js';

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';

describeEachDialect('POST /oauth2/token', (t) => {
  const token = (payload: string, headers: Record<string, string> = {}) =>
    t.ctx.app.inject({ method: 'POST', url: '/oauth2/token', payload, headers: { 'content-type': FORM, ...headers } });

  async function expectTokenWorks(accessToken: string, scope: string) {
    const res = await t.ctx.app.inject({
      method: 'GET',
      url: '/v1/fields',
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(res.statusCode).toBe(scope.includes('fields.') ? 200 : 403);
  }

  it('issues a token to HTTP Basic, form-body and JSON-body credentials', async () => {
    const c = await t.ctx.newClient(['fields.read', 'fields.write']);
    const answers = [
      await token(form({ grant_type: 'client_credentials' }), { authorization: basic(c.client_id, c.client_secret) }),
      await token(form({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret })),
      await t.ctx.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret },
      }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
      const body = res.json();
      expect(body).toEqual({
        access_token: expect.stringMatching(/^svc_at_[A-Za-z0-9_-]{43}$/),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'fields.read fields.write',
      });
      await expectTokenWorks(body.access_token, body.scope);
    }
    expect(await storedTokens(t.ctx, c.client_id)).toHaveLength(3);
  });

  it('narrows the token to the requested scope', async () => {
    const c = await t.ctx.newClient(['fields.read', 'fields.write']);
    const res = await token(form({ grant_type: 'client_credentials', scope: 'fields.read' }), {
      authorization: basic(c.client_id, c.client_secret),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().scope).toBe('fields.read');
    const bearer = { authorization: `Bearer ${res.json().access_token}` };
    expect((await t.ctx.app.inject({ method: 'GET', url: '/v1/fields', headers: bearer })).statusCode).toBe(200);
    const write = await t.ctx.app.inject({
      method: 'POST',
      url: '/v1/fields',
      headers: { ...bearer, 'idempotency-key': 'k1' },
      payload: { name: 'x', group: 'USER' },
    });
    expect(write.statusCode).toBe(403);
  });

  const oauthError = (error: string, status: number) => ({
    status,
    body: { error, error_description: expect.any(String) },
  });

  it('answers invalid_client 401 for unknown, wrong, revoked and missing credentials', async () => {
    const c = await t.ctx.newClient(['fields.read']);
    const revoked = await t.ctx.newClient(['fields.read']);
    await t.ctx.db.direct
      .updateTable('oauth_clients')
      .set({ revoked_at: 1 })
      .where('client_id', '=', revoked.client_id)
      .execute();
    const grant = { grant_type: 'client_credentials' };
    const cases: [string, Record<string, string>, Record<string, string>, boolean][] = [
      ['unknown (Basic)', grant, { authorization: basic('cli_nope', 'secret') }, true],
      ['wrong secret (Basic)', grant, { authorization: basic(c.client_id, 'wrong') }, true],
      ['revoked (Basic)', grant, { authorization: basic(revoked.client_id, revoked.client_secret) }, true],
      ['malformed Basic', grant, { authorization: 'Basic bm9jb2xvbg==' }, true],
      ['unknown (body)', { ...grant, client_id: 'cli_nope', client_secret: 's' }, {}, false],
      ['wrong secret (body)', { ...grant, client_id: c.client_id, client_secret: 'wrong' }, {}, false],
      ['revoked (body)', { ...grant, client_id: revoked.client_id, client_secret: revoked.client_secret }, {}, false],
      ['secret missing', { ...grant, client_id: c.client_id }, {}, false],
      // Text no client holds: PostgreSQL answered a NUL with a 500 before.
      ['NUL in the secret (Basic)', grant, { authorization: basic(c.client_id, 'a\u0000b') }, true],
      ['lone surrogate in the id (body)', { ...grant, client_id: 'cli_\ud800', client_secret: 's' }, {}, false],
      ['no credentials', grant, {}, false],
    ];
    for (const [name, fields, headers, viaBasic] of cases) {
      const res = await token(form(fields), headers);
      expect({ name, status: res.statusCode, body: res.json() }).toEqual({
        name,
        ...oauthError('invalid_client', 401),
      });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['www-authenticate']).toBe(viaBasic ? 'Basic realm="svc"' : undefined);
    }
    // A NUL in a parameter is refused before any look-up, as on every route (http/text-guard.ts), in OAuth's shape.
    const nul = await token(form({ ...grant, client_id: 'cli_\u0000x', client_secret: 's' }), {});
    expect({ status: nul.statusCode, body: nul.json() }).toEqual({
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'The request is invalid: /client_id must not contain the character U+0000',
      },
    });
    expect(nul.headers['cache-control']).toBe('no-store');
    expect(await storedTokens(t.ctx, c.client_id)).toEqual([]);
    expect(await storedTokens(t.ctx, revoked.client_id)).toEqual([]);
  });

  it('answers 400 unsupported_grant_type, invalid_scope and invalid_request', async () => {
    const c = await t.ctx.newClient(['fields.read']);
    const auth = { authorization: basic(c.client_id, c.client_secret) };
    const cases: [string, string, Record<string, string>, string][] = [
      ['password grant', form({ grant_type: 'password' }), auth, 'unsupported_grant_type'],
      [
        'scope not granted',
        form({ grant_type: 'client_credentials', scope: 'fields.read fields.write' }),
        auth,
        'invalid_scope',
      ],
      ['unknown scope', form({ grant_type: 'client_credentials', scope: 'admin' }), auth, 'invalid_scope'],
      ['empty scope', form({ grant_type: 'client_credentials', scope: ' ' }), auth, 'invalid_scope'],
      ['no grant_type', form({}), auth, 'invalid_request'],
      [
        'both Basic and body credentials',
        form({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }),
        auth,
        'invalid_request',
      ],
      ['repeated grant_type', 'grant_type=client_credentials&grant_type=client_credentials', auth, 'invalid_request'],
      ['repeated scope', 'grant_type=client_credentials&scope=fields.read&scope=fields.read', auth, 'invalid_request'],
    ];
    for (const [name, payload, headers, error] of cases) {
      const res = await token(payload, headers);
      expect({ name, status: res.statusCode, body: res.json() }).toEqual({ name, ...oauthError(error, 400) });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const repeated = await token('grant_type=client_credentials&scope=a&scope=b', auth);
    expect(repeated.json().error_description).toBe('Parameter scope is repeated.');
  });

  it('answers another content type in the OAuth shape: 400 invalid_request (RFC 6749 §5.2)', async () => {
    const c = await t.ctx.newClient(['fields.read']);
    for (const [type, payload] of [
      ['text/plain', 'grant_type=client_credentials'],
      ['application/xml', '<grant_type>client_credentials</grant_type>'],
    ]) {
      const res = await token(payload!, { 'content-type': type!, authorization: basic(c.client_id, c.client_secret) });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'invalid_request',
        error_description: `Content-Type ${type} is not supported; send application/x-www-form-urlencoded or application/json.`,
      });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const malformed = await token('{"grant_type":', { 'content-type': 'application/json' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe('invalid_request');
  });
});

describeEachDialect(
  'POST /oauth2/token throttling',
  (t) => {
    it('answers 429 in the OAuth shape with Retry-After once TOKEN_RATE_LIMIT_MAX is spent', async () => {
      const c = await t.ctx.newClient(['fields.read']);
      const payload = { grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret };
      const send = () => t.ctx.app.inject({ method: 'POST', url: '/oauth2/token', payload });
      for (let i = 0; i < 2; i++) expect((await send()).statusCode).toBe(200);
      const limited = await send();
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: expect.stringContaining('Retry-After'),
      });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['ratelimit-policy']).toBe('"token";q=2;w=3600');
      expect(limited.headers['ratelimit']).toMatch(/^"token";r=0;t=\d+$/);
      expect(limited.headers['cache-control']).toBe('no-store');
      expect(await storedTokens(t.ctx, c.client_id)).toHaveLength(2);
    });
  },
  { TOKEN_RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '3600' },
);
