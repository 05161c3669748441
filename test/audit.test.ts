import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { INTEGRATION, disconnectUrl, newVendor, reactivateUrl } from './support/integrations.js';
import { approve, authorizeParams, CONNECTED, newApp, pkce, signedIn } from './support/oauth.js';
import { svc } from './support/processes.js';
import { Browser, newUser } from './support/console.js';
import { enrolTotp } from './support/mfa.js';

const AUDIT = '/internal/v1/audit-events';
const AUDIT_ID = /^aud_[0-9a-z]{26}$/;
const ADMIN = [
  'account.admin',
  'audit.read',
  'accounting.integration.write',
  'accounting.record.admin',
  'fields.read',
  'fields.write',
] as const;

/** What an entry of an API client's request looks like: its client, its address, its request id. */
const byClient = (clientId: string) => ({ type: 'client', id: clientId });

describeEachDialect('audit log of administrative actions', (t) => {
  it('records each administrative action with who, what, when, from where and under which request', async () => {
    const admin = await t.ctx.as(ADMIN);
    const created = await admin.post('/internal/v1/clients', { scopes: ['fields.read'] });
    expect(created.status, created.text).toBe(200);
    const clientId = created.body.client_id;
    const rotated = await admin.post(`/internal/v1/clients/${clientId}/rotate-secret`, { overlap_seconds: 60 });
    expect(rotated.status, rotated.text).toBe(200);
    const revoked = await admin.delete(`/internal/v1/clients/${clientId}`);
    expect(revoked.status, revoked.text).toBe(200);
    const vendor = await newVendor(t.ctx.db);
    const integration = await admin.create(INTEGRATION, { vendor, vendor_account_id: 'erp-1' });
    expect(integration.status, integration.text).toBe(200);
    const id = integration.body.integration_id;
    // An idempotent repeat of the create changes nothing and records nothing.
    expect((await admin.create(INTEGRATION, { vendor, vendor_account_id: 'erp-1' })).status).toBe(200);
    expect((await admin.post(disconnectUrl(id), {})).status).toBe(200);
    expect((await admin.post(reactivateUrl(id), {})).status).toBe(200);
    const field = await admin.newField();
    const coding = await admin.put('/internal/v1/accounting/required-coding', { field_ids: [field] });
    expect(coding.status, coding.text).toBe(200);

    const log = await admin.get(AUDIT);
    expect(log.status, log.text).toBe(200);
    const entry = (action: string, target: { type: string; id: string }, details: object, requestId: unknown) => ({
      id: expect.stringMatching(AUDIT_ID),
      occurred_at: expect.stringMatching(ISO_MICROS),
      action,
      actor: byClient(admin.clientId),
      target,
      address: '127.0.0.1',
      request_id: requestId,
      details,
    });
    expect(log.body).toEqual({
      items: [
        entry(
          'account.required_coding_changed',
          { type: 'account', id: admin.accountId },
          { field_ids_before: [], field_ids: [field] },
          coding.headers['x-request-id'],
        ),
        entry('integration.reactivated', { type: 'integration', id }, {}, expect.any(String)),
        entry('integration.disconnected', { type: 'integration', id }, {}, expect.any(String)),
        entry(
          'integration.created',
          { type: 'integration', id },
          { vendor, vendor_account_id: 'erp-1' },
          integration.headers['x-request-id'],
        ),
        entry('api_client.revoked', { type: 'api_client', id: clientId }, {}, revoked.headers['x-request-id']),
        entry(
          'api_client.secret_rotated',
          { type: 'api_client', id: clientId },
          { previous_secret_valid_seconds: 60 },
          rotated.headers['x-request-id'],
        ),
        entry(
          'api_client.created',
          { type: 'api_client', id: clientId },
          { scopes: ['fields.read'] },
          created.headers['x-request-id'],
        ),
        // The admin's own client, made by the operator (the test's `svc clients create`).
        {
          ...entry('api_client.created', { type: 'api_client', id: admin.clientId }, { scopes: [...ADMIN] }, null),
          actor: { type: 'system', id: 'svc-cli' },
          address: null,
        },
      ],
      has_next_page: false,
      next_cursor: null,
    });
    // Never a secret, in any entry.
    expect(log.text).not.toContain(created.body.client_secret);
    expect(log.text).not.toContain(rotated.body.client_secret);
    expect(log.text).not.toMatch(/svc_cs_/);
  });

  it('records nothing for an action refused, and nothing of another account; reads are for audit.read alone', async () => {
    const admin = await t.ctx.as(ADMIN);
    expect((await admin.delete('/internal/v1/clients/cli_unknown')).status).toBe(404);
    expect((await admin.post('/internal/v1/clients', { scopes: ['audit.read', 'nope'] })).status).toBe(400);
    const stranger = await t.ctx.as(ADMIN);
    expect((await stranger.post('/internal/v1/clients', { scopes: ['fields.read'] })).status).toBe(200);
    const mine = await admin.get(AUDIT);
    expect(mine.body.items.map((e: { action: string }) => e.action)).toEqual(['api_client.created']);
    const theirs = await stranger.get(AUDIT);
    expect(theirs.body.items.map((e: { action: string }) => e.action)).toEqual([
      'api_client.created',
      'api_client.created',
    ]);
    expect(JSON.stringify(theirs.body)).not.toContain(admin.clientId);
    // Another account's entry cannot be reached by naming it either.
    expect((await stranger.get(AUDIT, { target_id: admin.clientId })).body.items).toEqual([]);
    // Without the scope: 403. Read-only: no operation writes or deletes an entry.
    const noScope = await t.ctx.as(['account.admin'], admin.accountId);
    const refused = await noScope.get(AUDIT);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(errorBody('FORBIDDEN', { details: expect.any(Object) }));
    expect(JSON.stringify(refused.body.details)).toContain('audit.read');
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await admin.request(method, AUDIT, { body: {} });
      expect({ method, status: res.status }).toEqual({ method, status: 405 });
    }
  });

  it('filters by action, actor, target and time, and pages newest first with a cursor bound to the filters', async () => {
    const admin = await t.ctx.as(ADMIN);
    const other = await t.ctx.as(['account.admin'], admin.accountId);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await admin.post('/internal/v1/clients', { scopes: ['fields.read'] })).body.client_id);
    await other.delete(`/internal/v1/clients/${ids[0]}`);
    const all = (await admin.get(AUDIT)).body.items as { id: string; occurred_at: string }[];
    expect(all).toHaveLength(8); // two clients made by the operator, five by the admin, one revocation

    const revocations = await admin.get(AUDIT, { 'action[]': ['api_client.revoked'] });
    expect(revocations.body.items).toEqual([
      expect.objectContaining({
        action: 'api_client.revoked',
        actor: byClient(other.clientId),
        target: { type: 'api_client', id: ids[0] },
      }),
    ]);
    expect((await admin.get(AUDIT, { actor_id: other.clientId })).body.items).toHaveLength(1);
    expect((await admin.get(AUDIT, { target_type: 'api_client', target_id: ids[2]! })).body.items).toEqual([
      expect.objectContaining({ action: 'api_client.created', target: { type: 'api_client', id: ids[2] } }),
    ]);
    const since = all[2]!.occurred_at;
    expect((await admin.get(AUDIT, { 'occurred_at[gte]': since })).body.items.map((e: { id: string }) => e.id)).toEqual(
      all.slice(0, 3).map((e) => e.id),
    );
    expect((await admin.get(AUDIT, { 'occurred_at[lt]': since })).body.items.map((e: { id: string }) => e.id)).toEqual(
      all.slice(3).map((e) => e.id),
    );

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: { id: string }[]; next_cursor: string | null } } = await admin.get(
        AUDIT,
        { limit: '3', 'action[]': ['api_client.created'], ...(cursor ? { cursor } : {}) },
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((e) => e.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.filter((_, i) => i !== 0).map((e) => e.id));
    const first = await admin.get(AUDIT, { limit: '3' });
    const mismatched = await admin.get(AUDIT, {
      limit: '3',
      'action[]': ['api_client.revoked'],
      cursor: first.body.next_cursor,
    });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body).toEqual(errorBody('INVALID_CURSOR'));
    const bad = await admin.get(AUDIT, { 'action[]': ['nothing.happened'], 'occurred_at[gte]': 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/query/action[]/0',
      '/query/occurred_at[gte]',
    ]);
  });

  it('records a partner app connected and revoked by a console admin, as that user', async () => {
    const app = await newApp(t.ctx.db);
    const browser = await signedIn(t.ctx.app, t.ctx.db);
    const { challenge } = pkce();
    await approve(browser, authorizeParams(app.id, challenge));
    expect((await browser.delete(`${CONNECTED}/${app.id}`)).status).toBe(200);
    const log = await browser.get(AUDIT, { target_type: 'connected_app' });
    expect(log.status, log.text).toBe(200);
    const userId = browser.clientId;
    const email = (await browser.get('/auth/session')).body.user.email;
    expect(log.body.items).toEqual([
      expect.objectContaining({
        action: 'connected_app.revoked',
        actor: { type: 'user', id: userId, name: email },
        target: { type: 'connected_app', id: app.id },
      }),
      expect.objectContaining({
        action: 'connected_app.authorized',
        actor: { type: 'user', id: userId, name: email },
        details: { scopes: ['fields.read', 'accounting.integration.write'], redirect_uri: expect.any(String) },
      }),
    ]);
  });

  it('records what the operator does with `svc`: no address, no request', async () => {
    const accountId = `acct_audit_${Date.now().toString(36)}`;
    const made = await svc(['clients', 'create', '--account', accountId, '--scopes', 'audit.read'], {
      DATABASE_URL: t.ctx.database.url,
    });
    expect(made.code, made.stderr).toBe(0);
    const creds = JSON.parse(made.stdout) as { client_id: string };
    expect(
      (
        await svc(['clients', 'rotate-secret', creds.client_id, '--overlap-seconds', '0'], {
          DATABASE_URL: t.ctx.database.url,
        })
      ).code,
    ).toBe(0);
    const reader = await t.ctx.as(['audit.read'], accountId);
    const log = await reader.get(AUDIT, { target_id: creds.client_id });
    expect(log.body.items).toEqual([
      expect.objectContaining({
        action: 'api_client.secret_rotated',
        actor: { type: 'system', id: 'svc-cli' },
        address: null,
        request_id: null,
        details: { previous_secret_valid_seconds: 0 },
      }),
      expect.objectContaining({
        action: 'api_client.created',
        actor: { type: 'system', id: 'svc-cli' },
        address: null,
        request_id: null,
      }),
    ]);
  });

  it("records users made, disabled and reset by the operator, and an admin's sign-in settings and MFA resets", async () => {
    const adminUser = await newUser(t.ctx.db, 'ACCOUNT_ADMIN');
    const accountId = adminUser.account_id;
    const admin = await Browser.signIn(t.ctx.app, adminUser);
    await enrolTotp(admin);
    const bookkeeper = await newUser(t.ctx.db, 'BOOKKEEPER', accountId);
    await enrolTotp(await Browser.signIn(t.ctx.app, bookkeeper));
    const required = await admin.put('/internal/v1/account/user-settings', { mfa_required: true });
    expect(required.status, required.text).toBe(200);
    const reset = await admin.delete(`/internal/v1/users/${bookkeeper.user_id}/mfa`);
    expect(reset.status, reset.text).toBe(200);
    const env = { DATABASE_URL: t.ctx.database.url };
    expect((await svc(['users', 'reset-password', bookkeeper.user_id], env)).code).toBe(0);
    expect((await svc(['users', 'disable', bookkeeper.user_id], env)).code).toBe(0);

    const log = await admin.get(AUDIT);
    expect(log.status, log.text).toBe(200);
    const operator = { type: 'system', id: 'svc-cli' };
    const byAdmin = { type: 'user', id: adminUser.user_id, name: adminUser.email };
    expect(
      log.body.items.map((e: { action: string; actor: unknown; target: unknown; details: unknown }) => [
        e.action,
        e.actor,
        e.target,
        e.details,
      ]),
    ).toEqual([
      ['user.disabled', operator, { type: 'user', id: bookkeeper.user_id }, {}],
      ['user.password_reset', operator, { type: 'user', id: bookkeeper.user_id }, {}],
      ['user.mfa_reset', byAdmin, { type: 'user', id: bookkeeper.user_id }, { email: bookkeeper.email }],
      [
        'account.settings_changed',
        byAdmin,
        { type: 'account', id: accountId },
        { mfa_required_before: false, mfa_required: true },
      ],
      [
        'user.created',
        operator,
        { type: 'user', id: bookkeeper.user_id },
        { email: bookkeeper.email, role: 'BOOKKEEPER' },
      ],
      [
        'user.created',
        operator,
        { type: 'user', id: adminUser.user_id },
        { email: adminUser.email, role: 'ACCOUNT_ADMIN' },
      ],
    ]);
    expect(log.body.items[2].request_id).toBe(reset.headers['x-request-id']);
  });
});
