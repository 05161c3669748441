import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { WEBHOOKS, webhookUrl } from '../support/webhooks.js';

/**
 * Issue 28, finding 9: `X-Content-Type-Options: nosniff` on every answer; `Cache-Control: no-store` on every answer
 * that carries a token or a secret; HSTS on every answer where svc is served over TLS.
 */
describeEachDialect('security headers on every answer', (t) => {
  it('sends nosniff on successes, errors, documents, pages and the token endpoint alike', async () => {
    const api = await t.ctx.as(['fields.read']);
    const creds = await t.ctx.newClient(['fields.read']);
    const answers = {
      health: await t.ctx.app.inject({ method: 'GET', url: '/healthz' }),
      list: await t.ctx.app.inject({
        method: 'GET',
        url: '/v1/fields',
        headers: { authorization: `Bearer ${api.token}` },
      }),
      unauthorized: await t.ctx.app.inject({ method: 'GET', url: '/v1/fields' }),
      notFound: await t.ctx.app.inject({ method: 'GET', url: '/v1/nothing-here' }),
      invalid: await t.ctx.app.inject({
        method: 'GET',
        url: '/v1/fields?limit=0',
        headers: { authorization: `Bearer ${api.token}` },
      }),
      openapi: await t.ctx.app.inject({ method: 'GET', url: '/openapi.json' }),
      docs: await t.ctx.app.inject({ method: 'GET', url: '/docs' }),
      metrics: await t.ctx.app.inject({ method: 'GET', url: '/metrics' }),
      console: await t.ctx.app.inject({ method: 'GET', url: '/console/queue' }),
      session: await t.ctx.app.inject({ method: 'GET', url: '/auth/session' }),
      token: await t.ctx.app.inject({
        method: 'POST',
        url: '/oauth2/token',
        payload: { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret },
      }),
      badToken: await t.ctx.app.inject({ method: 'POST', url: '/oauth2/token', payload: { grant_type: 'nope' } }),
    };
    const statuses = Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, res.statusCode]));
    expect(statuses).toEqual({
      health: 200,
      list: 200,
      unauthorized: 401,
      notFound: 404,
      invalid: 400,
      openapi: 200,
      docs: expect.toSatisfy((s: number) => s === 200 || s === 302),
      metrics: 200,
      console: 200,
      session: 401,
      token: 200,
      badToken: 400,
    });
    const sniffing = Object.entries(answers)
      .filter(([, res]) => res.headers['x-content-type-options'] !== 'nosniff')
      .map(([name]) => name);
    expect(sniffing).toEqual([]);
    // Served over plain http (PUBLIC_URL http://…): no HSTS, which a browser would ignore there anyway.
    expect(answers.list.headers['strict-transport-security']).toBeUndefined();
    // An ordinary answer says nothing about caches; the token's forbids them.
    expect(answers.list.headers['cache-control']).toBeUndefined();
    expect(answers.token.headers['cache-control']).toBe('no-store');
    expect(answers.badToken.headers['cache-control']).toBe('no-store');
  });

  it('forbids caches every answer that holds a secret: client create and rotate, webhook secrets', async () => {
    const admin = await t.ctx.as(['account.admin', 'fields.read', 'webhooks.write']);
    const created = await admin.post('/internal/v1/clients', { scopes: ['fields.read'] });
    expect(created.status, created.text).toBe(200);
    expect(created.body.client_secret).toEqual(expect.any(String));
    const rotated = await admin.post(`/internal/v1/clients/${created.body.client_id}/rotate-secret`, {});
    expect(rotated.status, rotated.text).toBe(200);
    const hookBody = { url: 'https://erp.example.com/hook', event_types: ['accounting_record.ready_for_export'] };
    const hook = await admin.post(WEBHOOKS, hookBody, { 'idempotency-key': 'hook-once' });
    expect(hook.status, hook.text).toBe(200);
    expect(hook.body.secret).toEqual(expect.any(String));
    const secrets = await admin.get(`${webhookUrl(hook.body.id)}/secret`);
    const rotatedHook = await admin.post(`${webhookUrl(hook.body.id)}/secret/rotate`, {});
    // A replay of the create carries the secret again: no cache may keep it either.
    const replayed = await admin.post(WEBHOOKS, hookBody, { 'idempotency-key': 'hook-once' });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    const cacheControl = Object.fromEntries(
      Object.entries({ created, rotated, hook, secrets, rotatedHook, replayed }).map(([name, res]) => [
        name,
        [res.status, res.headers['cache-control'], res.headers['pragma']],
      ]),
    );
    expect(cacheControl).toEqual({
      created: [200, 'no-store', 'no-cache'],
      rotated: [200, 'no-store', 'no-cache'],
      hook: [200, 'no-store', 'no-cache'],
      secrets: [200, 'no-store', 'no-cache'],
      rotatedHook: [200, 'no-store', 'no-cache'],
      replayed: [200, 'no-store', 'no-cache'],
    });
  });

  it('sends HSTS on every answer when served over https, for HSTS_MAX_AGE_SECONDS, and none when 0', async () => {
    const tls = await t.ctx.secondApp({ PUBLIC_URL: 'https://svc.example.com', TRUST_PROXY: 'loopback' });
    for (const url of ['/healthz', '/v1/fields', '/nothing', '/console/queue']) {
      const res = await tls.inject({ method: 'GET', url });
      expect({ url, hsts: res.headers['strict-transport-security'] }).toEqual({
        url,
        hsts: 'max-age=31536000; includeSubDomains',
      });
    }
    const short = await t.ctx.secondApp({ PUBLIC_URL: 'https://svc.example.com', HSTS_MAX_AGE_SECONDS: '600' });
    expect((await short.inject({ method: 'GET', url: '/healthz' })).headers['strict-transport-security']).toBe(
      'max-age=600; includeSubDomains',
    );
    const off = await t.ctx.secondApp({ PUBLIC_URL: 'https://svc.example.com', HSTS_MAX_AGE_SECONDS: '0' });
    expect((await off.inject({ method: 'GET', url: '/healthz' })).headers['strict-transport-security']).toBeUndefined();
  });
});
