import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import {
  approve,
  authorizeParams,
  CONNECTED,
  CONSENT,
  exchange,
  newApp,
  pkce,
  REDIRECT,
  signedIn,
  TOKEN_ANSWER,
} from './support/oauth.js';

describeEachDialect('OAuth authorization code: a partner app connected by an account admin', (t) => {
  it('shows the consent, answers a code with the state and the issuer, and the code buys tokens of that account alone', async () => {
    const app = await newApp(t.ctx.db);
    const admin = await signedIn(t.ctx.app, t.ctx.db);
    const { verifier, challenge } = pkce();
    const params = authorizeParams(app.id, challenge);
    const view = await admin.get(CONSENT, params);
    expect(view.status, view.text).toBe(200);
    expect(view.body).toEqual({
      app: { app_id: app.id, name: app.name },
      account_id: admin.accountId,
      redirect_uri: REDIRECT,
      scopes: [
        { scope: 'fields.read', description: 'View custom fields' },
        { scope: 'accounting.integration.write', description: 'View and manage accounting integration' },
      ],
      state: 'xyz-state',
    });
    const answer = await admin.post(CONSENT, { ...params, approve: true });
    expect(answer.status, answer.text).toBe(200);
    const redirect = new URL(answer.body.redirect_to);
    const issuer = (await t.ctx.app.inject({ url: '/.well-known/oauth-authorization-server' })).json().issuer;
    expect([...redirect.searchParams.keys()]).toEqual(['from', 'code', 'state', 'iss']);
    expect(redirect.searchParams.get('iss')).toBe(issuer);
    const code = redirect.searchParams.get('code')!;
    expect(code).toMatch(/^svc_ac_[A-Za-z0-9_-]{43}$/);

    const tokens = await exchange(t.ctx.app, app, code, verifier);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toEqual(TOKEN_ANSWER);
    expect(tokens.headers['cache-control']).toBe('no-store');

    // The token acts in the admin's account, with the granted scopes only.
    const mine = await admin.create('/v1/fields', { name: 'GL Account', group: 'ACCOUNTING' });
    expect(mine.status, mine.text).toBe(200);
    const fields = await t.ctx.app.inject({
      url: '/v1/fields',
      headers: { authorization: `Bearer ${tokens.body.access_token}` },
    });
    expect(fields.statusCode).toBe(200);
    expect(fields.json().items.map((f: any) => f.svc_id)).toEqual([mine.body.svc_id]);
    const write = await t.ctx.app.inject({
      method: 'POST',
      url: '/v1/fields',
      headers: { authorization: `Bearer ${tokens.body.access_token}` },
      payload: { name: 'Department', group: 'ACCOUNTING' },
    });
    expect(write.statusCode).toBe(403);

    // The account's admins see the connection; nothing of it is an API client.
    const connected = await admin.get(CONNECTED);
    expect(connected.body).toEqual({
      items: [
        {
          app_id: app.id,
          name: app.name,
          scopes: ['fields.read', 'accounting.integration.write'],
          connected_at: expect.any(String),
          connected_by: admin.clientId,
        },
      ],
    });
    expect((await admin.get('/internal/v1/clients')).body).toEqual({ items: [] });
  });

  it('answers problems before the client is known on the screen, and sends the others back to the app', async () => {
    const app = await newApp(t.ctx.db);
    const admin = await signedIn(t.ctx.app, t.ctx.db);
    const { challenge } = pkce();
    const refused = async (overrides: Record<string, string | undefined>) => {
      const res = await admin.get(CONSENT, authorizeParams(app.id, challenge, overrides));
      expect(res.status, res.text).toBe(400);
      expect(res.body.error_code).toBe('INVALID_AUTHORIZATION_REQUEST');
      return res.body;
    };
    expect((await refused({ client_id: 'app_unknown' })).details).toEqual({
      error: 'invalid_request',
      redirect_to: null,
    });
    expect((await refused({ redirect_uri: 'https://attacker.example.com/cb' })).details.redirect_to).toBeNull();
    expect((await refused({ redirect_uri: `${REDIRECT}&x=1` })).details.redirect_to).toBeNull();
    expect((await refused({ redirect_uri: undefined })).details.redirect_to).toBeNull();

    const back = async (overrides: Record<string, string | undefined>, error: string) => {
      const body = await refused(overrides);
      expect(body.details.error).toBe(error);
      const url = new URL(body.details.redirect_to);
      expect(url.origin + url.pathname).toBe('https://partner.example.com/oauth/callback');
      expect(url.searchParams.get('error')).toBe(error);
      expect(url.searchParams.get('error_description')).toBe(body.message);
      expect(url.searchParams.get('state')).toBe('xyz-state');
      return body.message;
    };
    expect(await back({ response_type: 'token' }, 'unsupported_response_type')).toBe('response_type must be "code".');
    expect(await back({ code_challenge: undefined }, 'invalid_request')).toMatch(/^code_challenge is required/);
    expect(await back({ code_challenge_method: 'plain' }, 'invalid_request')).toBe(
      'code_challenge_method must be "S256".',
    );
    expect(await back({ scope: 'fields.read account.admin' }, 'invalid_scope')).toBe(
      'A partner app may not ask for: account.admin.',
    );
    expect(await back({ scope: 'fields.read nonsense' }, 'invalid_scope')).toBe(
      'A partner app may not ask for: nonsense.',
    );
    expect(await back({ scope: undefined }, 'invalid_scope')).toBe('scope is required: the scopes the app asks for.');

    const denied = await admin.post(CONSENT, { ...authorizeParams(app.id, challenge), approve: false });
    expect(denied.status).toBe(200);
    const url = new URL(denied.body.redirect_to);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('xyz-state');
    expect(url.searchParams.get('code')).toBeNull();
    expect((await admin.get(CONNECTED)).body).toEqual({ items: [] });
  });

  it('lets account admins alone consent, with the CSRF token; an API client may not', async () => {
    const app = await newApp(t.ctx.db);
    const params = { ...authorizeParams(app.id, pkce().challenge), approve: true };
    const bookkeeper = await signedIn(t.ctx.app, t.ctx.db, 'BOOKKEEPER');
    const forbidden = await bookkeeper.post(CONSENT, params);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error_code).toBe('FORBIDDEN');
    const admin = await signedIn(t.ctx.app, t.ctx.db);
    admin.csrf = false;
    const noCsrf = await admin.post(CONSENT, params);
    expect([noCsrf.status, noCsrf.body]).toEqual([403, errorBody('CSRF_TOKEN_INVALID')]);
    const api = await t.ctx.as(['account.admin']);
    const asClient = await api.post(CONSENT, params);
    expect([asClient.status, asClient.body]).toEqual([403, errorBody('FORBIDDEN')]);
    expect(
      await t.ctx.db.direct.selectFrom('oauth_codes').select('app_id').where('app_id', '=', app.id).execute(),
    ).toEqual([]);
  });

  it('connects an app once per account whatever approvals race; a later approval adds its scopes', async () => {
    const app = await newApp(t.ctx.db);
    const admin = await signedIn(t.ctx.app, t.ctx.db);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        admin.post(CONSENT, { ...authorizeParams(app.id, pkce().challenge), approve: true }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    await approve(admin, authorizeParams(app.id, pkce().challenge, { scope: 'accounting.record.read' }));
    const connected = (await admin.get(CONNECTED)).body.items;
    expect(connected.map((c: any) => c.scopes)).toEqual([
      ['fields.read', 'accounting.integration.write', 'accounting.record.read'],
    ]);
  });

  it('publishes its metadata (RFC 8414) and sends /oauth2/authorize to the console with the query unchanged', async () => {
    const meta = await t.ctx.app.inject({ url: '/.well-known/oauth-authorization-server' });
    expect(meta.statusCode).toBe(200);
    const issuer = meta.json().issuer;
    expect(meta.json()).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/oauth2/authorize`,
      token_endpoint: `${issuer}/oauth2/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      scopes_supported: expect.arrayContaining(['fields.read', 'accounting.record.write']),
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/docs`,
    });
    expect(meta.json().scopes_supported).not.toContain('account.admin');
    const scheme = (await t.ctx.app.inject({ url: '/openapi.json' })).json().components.securitySchemes.OAuth2;
    expect(Object.keys(scheme.flows)).toEqual(['clientCredentials', 'authorizationCode']);
    expect(scheme.flows.authorizationCode).toMatchObject({
      authorizationUrl: '/oauth2/authorize',
      tokenUrl: '/oauth2/token',
      refreshUrl: '/oauth2/token',
    });
    expect(Object.keys(scheme.flows.authorizationCode.scopes)).toEqual(meta.json().scopes_supported);
    const query = '?response_type=code&client_id=app_x&state=a%20b';
    const res = await t.ctx.app.inject({ url: `/oauth2/authorize${query}` });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/console/oauth/authorize${query}`);
  });
});
