import { expect, it, onTestFinished } from 'vitest';
import { verifyWebhook } from '../client/src/webhooks.js';
import { describeEachDialect } from './support/context.js';
import { startServer } from './support/processes.js';
import { fetchToken, HttpApi } from './support/reliability.js';
import { startReceiver, WEBHOOKS } from './support/webhooks.js';

const ADMIN_TOKEN = 'sandbox-operator-token-0123456789';
const SETTING = 'WEBHOOK_ALLOW_PRIVATE_TARGETS=true';

/**
 * Issue 36, 2: a sandbox refused the integrator's local receiver, and the refusal did not name the setting that allows
 * it. In sandbox mode loopback receivers (over http too) are allowed by default; other private targets stay refused,
 * and every refusal names WEBHOOK_ALLOW_PRIVATE_TARGETS. A served sandbox, its own dispatcher, a real receiver.
 */
describeEachDialect('sandbox: webhooks to a local receiver', (t) => {
  it('delivers to a loopback receiver in sandbox mode, and refuses other private targets naming the setting', async () => {
    const server = await startServer({
      DATABASE_URL: t.ctx.database.url,
      SANDBOX: 'true',
      SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN,
      RATE_LIMIT_MAX: '0',
    });
    // Stopped with the test (it outlived the suite before: two servers left running after every CI run).
    onTestFinished(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const made = await fetch(`${server.url}/sandbox/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(made.status).toBe(200);
    const account = (await made.json()) as { account_id: string; client_id: string; client_secret: string };
    const api = new HttpApi(server.url, await fetchToken(server.url, account), account.account_id, account.client_id);

    const receiver = await startReceiver();
    const hook = await api.post(WEBHOOKS, { url: receiver.url, event_types: ['accounting_record.ready_for_export'] });
    expect(hook.status, hook.text).toBe(200);
    const localhost = await api.post(WEBHOOKS, {
      url: receiver.url.replace('127.0.0.1', 'localhost'),
      event_types: ['accounting_record.ready_for_export'],
    });
    expect(localhost.status, localhost.text).toBe(200);
    expect((await api.put(`${WEBHOOKS}/${localhost.body.id}`, { status: 'DISABLED' })).status).toBe(200);

    const record = await api.readyRecord();
    await receiver.arrived(1);
    const event = await verifyWebhook(hook.body.secret, receiver.received[0]!.body, receiver.received[0]!.headers);
    expect(event).toMatchObject({ type: 'accounting_record.ready_for_export', data: { id: record.id } });

    for (const url of ['http://10.0.0.5/hook', 'https://169.254.169.254/latest', 'http://erp.example.com/hook']) {
      const refused = await api.post(WEBHOOKS, { url, event_types: ['accounting_record.ready_for_export'] });
      expect({ url, status: refused.status, code: refused.body.error_code }).toEqual({
        url,
        status: 400,
        code: 'INVALID_REQUEST',
      });
      expect(refused.body.details.errors[0].path).toBe('/url');
      expect(refused.body.details.errors[0].message).toContain(SETTING);
    }
    const listed = await api.get(WEBHOOKS);
    expect(listed.body.items.map((e: { url: string }) => e.url).sort()).toEqual(
      [receiver.url, receiver.url.replace('127.0.0.1', 'localhost')].sort(),
    );
  });

  it('outside sandbox mode refuses a loopback receiver, naming the setting that would allow it', async () => {
    const api = await t.ctx.as(['webhooks.write']);
    for (const url of ['http://127.0.0.1:9/hook', 'https://127.0.0.1:9/hook', 'http://localhost:9/hook']) {
      const refused = await api.post(WEBHOOKS, { url, event_types: ['accounting_record.ready_for_export'] });
      expect({ url, status: refused.status, code: refused.body.error_code }).toEqual({
        url,
        status: 400,
        code: 'INVALID_REQUEST',
      });
      expect(refused.body.details.errors[0].message).toContain(SETTING);
    }
    expect((await api.get(WEBHOOKS)).body.items).toEqual([]);
  });
});
