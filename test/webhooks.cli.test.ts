import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { svc } from './support/processes.js';
import { attemptsOf, startReceiver, subscribe, testDispatcher, WEBHOOKS, webhookUrl } from './support/webhooks.js';

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describeEachDialect(
  'svc webhooks',
  (t) => {
    const env = () => ({ DATABASE_URL: t.ctx.database.url });

    it("lists an account's endpoints without secrets, disables and enables one; mistakes exit 2", async () => {
      const api = await t.ctx.as(['webhooks.write']);
      const made = await api.post(WEBHOOKS, {
        url: 'https://erp.example.com/hook',
        event_types: ['field_values.changed'],
      });
      const { secret, ...endpoint } = made.body;
      const listed = await svc(['webhooks', 'list', '--account', api.accountId], env());
      expect([listed.code, lines(listed.stdout)]).toEqual([0, [endpoint]]);
      expect(listed.stdout).not.toContain(secret);

      const disabled = await svc(['webhooks', 'disable', endpoint.id, '--account', api.accountId], env());
      expect(disabled.code, disabled.stderr).toBe(0);
      expect(lines(disabled.stdout)[0]).toMatchObject({
        status: 'DISABLED',
        disabled_reason: 'Disabled by system svc-cli.',
      });
      expect((await api.get(webhookUrl(endpoint.id))).body.status).toBe('DISABLED');
      const enabled = await svc(['webhooks', 'enable', endpoint.id, '--account', api.accountId], env());
      expect(lines(enabled.stdout)[0]).toMatchObject({ status: 'ENABLED', disabled_reason: null });

      const unknown = await svc(['webhooks', 'disable', 'whk_nope', '--account', api.accountId], env());
      expect([unknown.code, unknown.stderr]).toEqual([
        2,
        expect.stringContaining("svc: Webhook endpoint whk_nope not found.\nRun 'svc webhooks disable --help'"),
      ]);
      expect((await svc(['webhooks', 'list'], env())).code).toBe(2);
    });

    it('queues a test event for one endpoint, which the dispatcher delivers signed; a disabled endpoint exits 2', async () => {
      const api = await t.ctx.as(['webhooks.write']);
      const receiver = await startReceiver();
      const hook = await subscribe(api, receiver.url);
      const sent = await svc(['webhooks', 'test', hook.id, '--account', api.accountId], env());
      expect(sent.code, sent.stderr).toBe(0);
      const [event] = lines(sent.stdout);
      expect(event).toMatchObject({ type: 'webhook.test', data: { object: 'webhook_endpoint', id: hook.id } });
      expect(await testDispatcher(t.ctx.db).runOnce()).toMatchObject({ attempted: 1, delivered: 1 });
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([event.id]);
      const got = receiver.received[0]!;
      expect(new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(event);
      expect((await attemptsOf(api, hook.id)).map((a) => [a.event_id, a.event_type])).toEqual([
        [event.id, 'webhook.test'],
      ]);

      expect((await api.put(webhookUrl(hook.id), { status: 'DISABLED' })).status).toBe(200);
      const refused = await svc(['webhooks', 'test', hook.id, '--account', api.accountId], env());
      expect([refused.code, refused.stdout]).toEqual([2, '']);
      expect(refused.stderr).toContain(`svc: Webhook endpoint ${hook.id} is disabled`);
      expect((await svc(['webhooks', 'test', '--account', api.accountId], env())).code).toBe(2);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
  // The CLI runs the services the server runs, tested per dialect through HTTP: SQLite alone here.
  { only: 'sqlite' },
);
