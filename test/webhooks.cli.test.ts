import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { svc } from './support/processes.js';
import { WEBHOOKS, webhookUrl } from './support/webhooks.js';

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
  },
  {},
  // The CLI runs the services the server runs, tested per dialect through HTTP: SQLite alone here.
  { only: 'sqlite' },
);
