import { expect, it } from 'vitest';
import { verifyWebhook } from '../client/src/webhooks.js';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { startServer } from './support/processes.js';
import { fetchToken, HttpApi } from './support/reliability.js';
import { CEILING_MS, until } from './support/wait.js';
import { startReceiver, WEBHOOKS } from './support/webhooks.js';

/**
 * The longest a delivery legitimately waits after the restart: the killed server may have claimed it without its
 * attempt being answered, and the new server takes that claim over once the dead one's heartbeat has stood still
 * for WEBHOOK_TAKEOVER_SECONDS (2 s here; its lease, 60 s, is the last resort). The ceiling is well above both.
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
      const env = {
        DATABASE_URL: t.ctx.database.url,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TAKEOVER_SECONDS: '2',
      };
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

      // Killed at once after a committed change: its event waits in the table and a new process delivers it. The
      // receiver holds what it is sent until the new process runs, so that nothing is answered before the kill: the
      // killed server's attempt (if it began one) dies with it, and the new server's is answered when released.
      receiver.plan(['hold']);
      const second = await api.readyRecord();
      server.child.kill('SIGKILL');
      await server.exited;
      server = await startServer(env);
      const restarted = new HttpApi(server.url, await fetchToken(server.url, creds), creds.account_id, creds.client_id);
      const firstEvent = got.headers['webhook-id'];
      const succeeded = await until(
        'the delivery after the restart',
        async () => {
          receiver.release();
          const log = await restarted.get(`${WEBHOOKS}/${hook.body.id}/attempts`);
          expect(log.status, log.text).toBe(200);
          return log.body.items.find(
            (a: { succeeded: boolean; event_id: string }) => a.succeeded && a.event_id !== firstEvent,
          );
        },
        { ceilingMs: AFTER_RESTART_MS, everyMs: 100 },
      );
      // Answered by the new server: its attempt, whatever the killed one began, carried the second change.
      expect(succeeded).toMatchObject({ event_type: 'accounting_record.ready_for_export', status_code: 200 });
      const delivered = receiver.received.filter((r) => r.headers['webhook-id'] === succeeded.event_id);
      expect(delivered.length).toBeGreaterThanOrEqual(1);
      for (const r of delivered) {
        await verifyWebhook(hook.body.secret, r.body, r.headers);
        expect(JSON.parse(r.body).data).toEqual({ object: 'accounting_record', id: second.id, version: 1 });
      }

      server.child.kill('SIGTERM');
      const exited = await server.exited;
      expect(exited.code, exited.stderr).toBe(0);
    },
  );
});
