import { expect, it } from 'vitest';
import { hashSecret } from '../src/modules/auth/auth.service.js';
import { appsService } from '../src/modules/auth/apps.service.js';
import { describeEachDialect } from './support/context.js';
import {
  authorizeParams,
  CONNECTED,
  connectedCode,
  CONSENT,
  exchange,
  newApp,
  pkce,
  REDIRECT,
  signedIn,
  statusWith,
  TOKEN_ANSWER,
  tokenRequest,
} from './support/oauth.js';

const invalidGrant = (description: string) => ({ error: 'invalid_grant', error_description: description });

describeEachDialect('OAuth authorization code: a partner app connected by an account admin', (t) => {
  it('works for a public app with PKCE alone, and refuses a secret from it', async () => {
    const { app, verifier, code } = await connectedCode(t.ctx, { public: true });
    expect(app.secret).toBeUndefined();
    const withSecret = await tokenRequest(
      t.ctx.app,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { id: app.id, secret: 'svc_as_guess' },
    );
    expect(withSecret.status).toBe(401);
    expect(withSecret.body.error).toBe('invalid_client');
    const tokens = await exchange(t.ctx.app, app, code, verifier, { client_id: app.id });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toEqual(TOKEN_ANSWER);
  });

  it('refuses the RFC error cases: wrong verifier, wrong redirect URI, code of another app, expired code, no secret', async () => {
    const { app, verifier, code } = await connectedCode(t.ctx);
    const other = await newApp(t.ctx.db);

    expect((await exchange(t.ctx.app, app, code, pkce().verifier)).body).toEqual(
      invalidGrant('The code_verifier does not match.'),
    );
    expect(
      (await exchange(t.ctx.app, app, code, verifier, { redirect_uri: 'https://partner.example.com/other' })).body,
    ).toEqual(invalidGrant('redirect_uri is not the one the code was issued for.'));
    expect((await exchange(t.ctx.app, other, code, verifier)).body).toEqual(
      invalidGrant('The authorization code is unknown.'),
    );
    const noSecret = await exchange(t.ctx.app, { id: app.id }, code, verifier, { client_id: app.id });
    expect([noSecret.status, noSecret.body.error]).toEqual([401, 'invalid_client']);
    const wrongSecret = await exchange(t.ctx.app, { id: app.id, secret: 'svc_as_wrong' }, code, verifier);
    expect([wrongSecret.status, wrongSecret.body.error]).toEqual([401, 'invalid_client']);
    const missing = await exchange(t.ctx.app, app, code, verifier, { code_verifier: '' });
    expect([missing.status, missing.body]).toEqual([
      400,
      { error: 'invalid_request', error_description: 'code_verifier is required (PKCE).' },
    ]);
    // None of these spent the code.
    const tokens = await exchange(t.ctx.app, app, code, verifier);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);

    const late = await connectedCode(t.ctx);
    await t.ctx.db.direct
      .updateTable('oauth_codes')
      .set({ expires_at: 0 })
      .where('code_hash', '=', hashSecret(late.code))
      .execute();
    expect((await exchange(t.ctx.app, late.app, late.code, late.verifier)).body).toEqual(
      invalidGrant('The authorization code has expired.'),
    );
  });

  it('a code used twice is refused, and the tokens its first use gave stop working', async () => {
    const { app, verifier, code } = await connectedCode(t.ctx);
    const first = await exchange(t.ctx.app, app, code, verifier);
    expect(first.status).toBe(200);
    expect(await statusWith(t.ctx.app, first.body.access_token)).toBe(200);
    const again = await exchange(t.ctx.app, app, code, verifier);
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
    const { app, verifier, code } = await connectedCode(t.ctx);
    const basic = { id: app.id, secret: app.secret! };
    const first = (await exchange(t.ctx.app, app, code, verifier)).body;
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

  it('revokes a connection: its tokens answer 401 on the next request; another account cannot revoke it', async () => {
    const { app, admin, verifier, code } = await connectedCode(t.ctx);
    const tokens = (await exchange(t.ctx.app, app, code, verifier)).body;
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
    const one = await connectedCode(t.ctx);
    const tokens = (await exchange(t.ctx.app, one.app, one.code, one.verifier)).body;
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
});
