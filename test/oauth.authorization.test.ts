import { expect, it } from 'vitest';
import { hashSecret } from '../src/modules/auth/auth.service.js';
import { appsService } from '../src/modules/auth/apps.service.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import {
  approve,
  authorizeParams,
  CONNECTED,
  CONSENT,
  newApp,
  pkce,
  REDIRECT,
  signedIn,
  statusWith,
  tokenRequest,
} from './support/oauth.js';

const TOKEN_ANSWER = {
  access_token: expect.stringMatching(/^svc_at_/),
  token_type: 'Bearer',
  expires_in: 3600,
  scope: 'fields.read accounting.integration.write',
  refresh_token: expect.stringMatching(/^svc_rt_/),
};

const invalidGrant = (description: string) => ({ error: 'invalid_grant', error_description: description });

describeEachDialect('OAuth authorization code: a partner app connected by an account admin', (t) => {
  /** An app, an admin of a new account, a PKCE pair and the code the admin's approval answers. */
  async function connectedCode(options: { public?: boolean } = {}) {
    const app = await newApp(t.ctx.db, options);
    const admin = await signedIn(t.ctx.app, t.ctx.db);
    const { verifier, challenge } = pkce();
    const code = await approve(admin, authorizeParams(app.id, challenge));
    return { app, admin, verifier, code };
  }

  const exchange = (
    app: { id: string; secret?: string },
    code: string,
    verifier: string,
    extra: Record<string, string> = {},
  ) =>
    tokenRequest(
      t.ctx.app,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, ...extra },
      app.secret ? { id: app.id, secret: app.secret } : undefined,
    );

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

    const tokens = await exchange(app, code, verifier);
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

  it('works for a public app with PKCE alone, and refuses a secret from it', async () => {
    const { app, verifier, code } = await connectedCode({ public: true });
    expect(app.secret).toBeUndefined();
    const withSecret = await tokenRequest(
      t.ctx.app,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { id: app.id, secret: 'svc_as_guess' },
    );
    expect(withSecret.status).toBe(401);
    expect(withSecret.body.error).toBe('invalid_client');
    const tokens = await exchange(app, code, verifier, { client_id: app.id });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toEqual(TOKEN_ANSWER);
  });

  it('refuses the RFC error cases: wrong verifier, wrong redirect URI, code of another app, expired code, no secret', async () => {
    const { app, verifier, code } = await connectedCode();
    const other = await newApp(t.ctx.db);

    expect((await exchange(app, code, pkce().verifier)).body).toEqual(
      invalidGrant('The code_verifier does not match.'),
    );
    expect((await exchange(app, code, verifier, { redirect_uri: 'https://partner.example.com/other' })).body).toEqual(
      invalidGrant('redirect_uri is not the one the code was issued for.'),
    );
    expect((await exchange(other, code, verifier)).body).toEqual(invalidGrant('The authorization code is unknown.'));
    const noSecret = await exchange({ id: app.id }, code, verifier, { client_id: app.id });
    expect([noSecret.status, noSecret.body.error]).toEqual([401, 'invalid_client']);
    const wrongSecret = await exchange({ id: app.id, secret: 'svc_as_wrong' }, code, verifier);
    expect([wrongSecret.status, wrongSecret.body.error]).toEqual([401, 'invalid_client']);
    const missing = await exchange(app, code, verifier, { code_verifier: '' });
    expect([missing.status, missing.body]).toEqual([
      400,
      { error: 'invalid_request', error_description: 'code_verifier is required (PKCE).' },
    ]);
    // None of these spent the code.
    const tokens = await exchange(app, code, verifier);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);

    const late = await connectedCode();
    await t.ctx.db.direct
      .updateTable('oauth_codes')
      .set({ expires_at: 0 })
      .where('code_hash', '=', hashSecret(late.code))
      .execute();
    expect((await exchange(late.app, late.code, late.verifier)).body).toEqual(
      invalidGrant('The authorization code has expired.'),
    );
  });

  it('a code used twice is refused, and the tokens its first use gave stop working', async () => {
    const { app, verifier, code } = await connectedCode();
    const first = await exchange(app, code, verifier);
    expect(first.status).toBe(200);
    expect(await statusWith(t.ctx.app, first.body.access_token)).toBe(200);
    const again = await exchange(app, code, verifier);
    expect([again.status, again.body]).toEqual([
      400,
      invalidGrant('The authorization code was used already; the tokens it gave are revoked.'),
    ]);
    expect(await statusWith(t.ctx.app, first.body.access_token)).toBe(401);
    const refreshed = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: first.body.refresh_token },
      { id: app.id, secret: app.secret! },
    );
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('rotates refresh tokens; a replayed one revokes the whole family', async () => {
    const { app, verifier, code } = await connectedCode();
    const basic = { id: app.id, secret: app.secret! };
    const first = (await exchange(app, code, verifier)).body;
    const second = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      basic,
    );
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body).toEqual(TOKEN_ANSWER);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    // Narrowed, never widened.
    const narrow = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: second.body.refresh_token, scope: 'fields.read' },
      basic,
    );
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(200);
    expect(narrow.body.scope).toBe('fields.read');
    const wider = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token, scope: 'fields.read fields.write' },
      basic,
    );
    expect([wider.status, wider.body]).toEqual([
      400,
      { error: 'invalid_scope', error_description: 'Not granted: fields.write.' },
    ]);
    // The narrowed answer's refresh token keeps the grant's scopes.
    const third = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: narrow.body.refresh_token },
      basic,
    );
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    expect(third.body.scope).toBe('fields.read accounting.integration.write');

    // The first refresh token again: stolen and replayed. Every token of the family stops working.
    const replay = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token },
      basic,
    );
    expect([replay.status, replay.body]).toEqual([
      400,
      invalidGrant('The refresh token was used already; every token of its family is revoked.'),
    ]);
    for (const token of [first.access_token, second.body.access_token, third.body.access_token])
      expect(await statusWith(t.ctx.app, token)).toBe(401);
    const latest = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: third.body.refresh_token },
      basic,
    );
    expect(latest.body.error).toBe('invalid_grant');
    // Another app cannot use the refresh token either.
    const other = await newApp(t.ctx.db);
    const foreign = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: third.body.refresh_token },
      { id: other.id, secret: other.secret! },
    );
    expect(foreign.body).toEqual(invalidGrant('The refresh token is unknown.'));
  });

  it('keeps grant types to their clients: no client credentials for an app, no code for an API client', async () => {
    const app = await newApp(t.ctx.db);
    const asApp = await tokenRequest(
      t.ctx.app,
      { grant_type: 'client_credentials' },
      { id: app.id, secret: app.secret! },
    );
    expect([asApp.status, asApp.body.error]).toEqual([400, 'unauthorized_client']);
    const client = await t.ctx.newClient(['fields.read']);
    const asClient = await tokenRequest(
      t.ctx.app,
      { grant_type: 'authorization_code', code: 'svc_ac_x', redirect_uri: REDIRECT, code_verifier: pkce().verifier },
      { id: client.client_id, secret: client.client_secret },
    );
    expect([asClient.status, asClient.body.error]).toEqual([400, 'unauthorized_client']);
    const unknown = await tokenRequest(t.ctx.app, { grant_type: 'password', username: 'a', password: 'b' });
    expect(unknown.body.error).toBe('unsupported_grant_type');
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

  it('revokes a connection: its tokens answer 401 on the next request; another account cannot revoke it', async () => {
    const { app, admin, verifier, code } = await connectedCode();
    const tokens = (await exchange(app, code, verifier)).body;
    const stranger = await signedIn(t.ctx.app, t.ctx.db);
    const theirs = await stranger.delete(`${CONNECTED}/${app.id}`);
    expect([theirs.status, theirs.body.error_code]).toEqual([404, 'NOT_FOUND']);
    expect(await statusWith(t.ctx.app, tokens.access_token)).toBe(200);
    const revoked = await admin.delete(`${CONNECTED}/${app.id}`);
    expect([revoked.status, revoked.body]).toEqual([200, {}]);
    expect(await statusWith(t.ctx.app, tokens.access_token)).toBe(401);
    const refreshed = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { id: app.id, secret: app.secret! },
    );
    expect(refreshed.body.error).toBe('invalid_grant');
    expect((await admin.get(CONNECTED)).body).toEqual({ items: [] });
    expect((await admin.delete(`${CONNECTED}/${app.id}`)).status).toBe(404);
  });

  it('disabling an app stops every token it holds, in every account, and its new authorizations', async () => {
    const one = await connectedCode();
    const tokens = (await exchange(one.app, one.code, one.verifier)).body;
    await appsService.disable(t.ctx.db, one.app.id);
    expect(await statusWith(t.ctx.app, tokens.access_token)).toBe(401);
    const refreshed = await tokenRequest(
      t.ctx.app,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { id: one.app.id, secret: one.app.secret! },
    );
    expect([refreshed.status, refreshed.body.error]).toEqual([401, 'invalid_client']);
    const view = await one.admin.get(CONSENT, authorizeParams(one.app.id, pkce().challenge));
    expect([view.status, view.body.details]).toEqual([400, { error: 'invalid_request', redirect_to: null }]);
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
