import { expect, it } from 'vitest';
import { verifyWebhook } from '../client/src/webhooks.js';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { startServer } from './support/processes.js';
import { fetchToken, HttpApi } from './support/reliability.js';
import { CEILING_MS, until } from './support/wait.js';
import { startReceiver, WEBHOOKS } from './support/webhooks.js';

/**
 * The longest a delivery legitimately waits after the restart: the killed server may have claimed it (its lease,
 * 60 s, runs out first) without reaching the receiver, whose planned hang then meets the new server's first attempt
 * (its timeout, 10 s) and a retry (5 s ± 25 %): about 77 s. The ceiling is well above it.
 */
const AFTER_RESTART_MS = 180_000;
const TIMEOUT_MS = AFTER_RESTART_MS + 2 * CEILING_MS;

/**
 * The served path as a connector meets it: `node dist/server.js` (whose dispatcher server.ts starts), a receiver,
 * an approval, its delivery, verified with the SDK; and a server SIGKILLed right after the commit of a change,
 * whose event a restarted server delivers.
 */
describeEachDialect('webhooks on a running server', (t) => {
  it(
    'delivers "ready for export", survives a SIGKILL after the commit, and drains on SIGTERM',
    { timeout: TIMEOUT_MS },
    async () => {
      const env = { DATABASE_URL: t.ctx.database.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
      const creds = await t.ctx.newClient([...ADMIN, 'webhooks.write', 'events.read']);
      const receiver = await startReceiver();
      let server = await startServer(env);
      const api = new HttpApi(server.url, await fetchToken(server.url, creds), creds.account_id, creds.client_id);
      const hook = await api.post(WEBHOOKS, { url: receiver.url, event_types: ['accounting_record.ready_for_export'] });
      expect(hook.status, hook.text).toBe(200);

      const first = await api.readyRecord();
      await receiver.arrived(1);
      const got = receiver.received[0]!;
      const event = await verifyWebhook(hook.body.secret, got.body, got.headers);
      expect(event).toMatchObject({ type: 'accounting_record.ready_for_export', data: { id: first.id, version: 1 } });

      // Killed at once after a committed change: its event waits in the table and a new process delivers it.
      receiver.plan(['hang']); // nothing answered before the kill either way
      const second = await api.readyRecord();
      server.child.kill('SIGKILL');
      await server.exited;
      server = await startServer(env);
      const delivered = await until(
        'the delivery after the restart',
        () => receiver.received.find((r) => r.body.includes(second.id) && r.behaviour === 'ok'),
        { ceilingMs: AFTER_RESTART_MS },
      );
      expect(JSON.parse(delivered.body).data).toEqual({ object: 'accounting_record', id: second.id, version: 1 });

      server.child.kill('SIGTERM');
      const exited = await server.exited;
      expect(exited.code, exited.stderr).toBe(0);
    },
  );
});
