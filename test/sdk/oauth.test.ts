import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import {
  SvcClient,
  SvcOAuthError,
  authorizationRequest,
  exchangeCode,
  readRedirect,
  type TokenSet,
} from '../../client/src/index.js';
import { hashSecret } from '../../src/modules/auth/auth.service.js';
import { newVendor } from '../support/integrations.js';
import { CONSENT, newApp, REDIRECT, signedIn } from '../support/oauth.js';
import { tempDir } from '../support/processes.js';
import { describeLive } from './live-server.js';

const run = promisify(execFile);
const BIN = new URL('../../bin/svc.js', import.meta.url).pathname;
const SCOPE = 'accounting.integration.write accounting.record.read accounting.record.write';

describeLive('SDK: a partner app, by authorization code', (s) => {
  /** The SDK's authorization URL, approved by a new account's admin: the redirect it answers, and what to keep. */
  async function authorized(app: { id: string }, approve = true) {
    const request = await authorizationRequest({
      baseUrl: s.live.url,
      clientId: app.id,
      redirectUri: REDIRECT,
      scope: SCOPE,
    });
    const url = new URL(request.url);
    expect(url.origin + url.pathname).toBe(`${s.live.url}/oauth2/authorize`);
    // The browser: /oauth2/authorize sends it to the console, whose consent screen posts the same query.
    const hop = await fetch(request.url, { redirect: 'manual' });
    expect(hop.status).toBe(302);
    expect(hop.headers.get('location')).toBe(`/console/oauth/authorize${url.search}`);
    const admin = await signedIn(s.live.ctx.app, s.live.ctx.db);
    const answer = await admin.post(CONSENT, { ...Object.fromEntries(url.searchParams), approve });
    expect(answer.status, answer.text).toBe(200);
    return { ...request, admin, redirectTo: answer.body.redirect_to as string };
  }

  it('builds the authorization URL with PKCE, exchanges the code, and refreshes by itself, keeping each new refresh token', async () => {
    const app = await newApp(s.live.ctx.db);
    const flow = await authorized(app);
    const issuer = (await (await fetch(`${s.live.url}/.well-known/oauth-authorization-server`)).json()).issuer;
    const code = readRedirect(flow.redirectTo, flow.state, issuer);
    const first = await exchangeCode({
      baseUrl: s.live.url,
      clientId: app.id,
      clientSecret: app.secret,
      code,
      redirectUri: REDIRECT,
      codeVerifier: flow.codeVerifier,
    });
    expect(first.scope).toBe(SCOPE);

    const kept: TokenSet[] = [];
    const client = new SvcClient({
      baseUrl: s.live.url,
      clientId: app.id,
      clientSecret: app.secret,
      refreshToken: first.refresh_token,
      onTokens: (tokens) => void kept.push(tokens),
    });
    const vendor = await newVendor(s.live.ctx.db);
    const integration = await client.integrations.create({ vendor, vendor_account_id: 'erp-1' });
    expect(integration.status).toBe('ACTIVE');
    expect(kept.length).toBe(1);

    // The access token expires: the next call refreshes again, with the refresh token the last one answered.
    await s.live.ctx.db.direct
      .updateTable('access_tokens')
      .set({ expires_at: 0 })
      .where('token_hash', '=', hashSecret(kept[0]!.access_token))
      .execute();
    const page = await client.accountingRecords.query({ limit: 1 });
    expect(page.items).toEqual([]);
    expect(kept.length).toBe(2);
    expect(kept[1]!.refresh_token).not.toBe(kept[0]!.refresh_token);
    // The account's integration is the one the partner made: tokens act in the admin's account.
    const listed = await flow.admin.get('/internal/v1/integrations');
    expect(listed.body.items.map((i: any) => i.integration_id)).toEqual([integration.integration_id]);

    // The code again: refused, and the tokens it gave are revoked.
    const replay = await exchangeCode({
      baseUrl: s.live.url,
      clientId: app.id,
      clientSecret: app.secret,
      code,
      redirectUri: REDIRECT,
      codeVerifier: flow.codeVerifier,
    }).catch((e: unknown) => e);
    expect(replay).toBeInstanceOf(SvcOAuthError);
    expect(replay).toMatchObject({ status: 400, error: 'invalid_grant' });
  });

  it('refuses a redirect with another state, and says when the admin denied', async () => {
    const app = await newApp(s.live.ctx.db, { public: true });
    const flow = await authorized(app);
    expect(() => readRedirect(flow.redirectTo, 'another state')).toThrow(
      expect.objectContaining({ error: 'invalid_state' }),
    );
    const denied = await authorized(app, false);
    expect(() => readRedirect(denied.redirectTo, denied.state)).toThrow(
      expect.objectContaining({ error: 'access_denied' }),
    );
  });

  it('svc poll and svc report run with a partner token, rewriting the refresh token file as it rotates', async () => {
    const app = await newApp(s.live.ctx.db, { public: true });
    const flow = await authorized(app);
    const tokens = await exchangeCode({
      baseUrl: s.live.url,
      clientId: app.id,
      code: readRedirect(flow.redirectTo, flow.state),
      redirectUri: REDIRECT,
      codeVerifier: flow.codeVerifier,
    });
    const admin = await s.live.ctx.as(['accounting.record.admin', 'accounting.record.read'], flow.admin.accountId);
    const [ready] = await admin.newRecords([{ type: 'CARD_PAYMENT', review_status: 'READY_FOR_EXPORT' }]);
    const dir = tempDir('svc-partner-');
    const tokenFile = `${dir}/refresh-token`;
    fs.writeFileSync(tokenFile, `${tokens.refresh_token}\n`);
    const env = { ...process.env, SVC_URL: s.live.url, SVC_CLIENT_ID: app.id, SVC_REFRESH_TOKEN_FILE: tokenFile };
    await run(
      process.execPath,
      [BIN, 'poll', '--once', '--checkpoint', `${dir}/cp.json`, '--out', `${dir}/out.ndjson`],
      {
        env,
      },
    );
    const polled = fs
      .readFileSync(`${dir}/out.ndjson`, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l).id);
    expect(polled).toEqual([ready.id]);
    const second = fs.readFileSync(tokenFile, 'utf8').trim();
    expect(second).toMatch(/^svc_rt_/);
    expect(second).not.toBe(tokens.refresh_token);

    const results = `${JSON.stringify({ accounting_record_id: ready.id, success: { reference_id: 'JE-1' } })}\n`;
    fs.writeFileSync(`${dir}/results.ndjson`, results);
    const reported = await run(process.execPath, [BIN, 'report', '--in', `${dir}/results.ndjson`], { env });
    expect(reported.stdout.trim().split('\n').at(-1)).toBe('{"updated":1,"refused":0}');
    expect(fs.readFileSync(tokenFile, 'utf8').trim()).not.toBe(second);
    expect((await admin.get(`/v3/accounting/records/${ready.id}`)).body.review_status).toBe('EXPORTED');
  });
});
