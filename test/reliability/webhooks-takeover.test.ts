import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it, onTestFinished } from 'vitest';
import { verifyWebhook } from '../../client/src/webhooks.js';
import { nowMicros } from '../../src/lib/clock.js';
import { ADMIN } from '../support/accounting.js';
import { describeServed, report } from '../support/reliability.js';
import { until } from '../support/wait.js';
import { WEBHOOKS } from '../support/webhooks.js';

/**
 * A receiver that holds the first request it gets (never answers it: its sender is killed meanwhile) and answers 200
 * to the others, noting when each arrived (microseconds, this machine's clock, as the servers' leases are).
 */
async function holdingReceiver() {
  const arrivals: { at: number; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrivals.push({ at: nowMicros(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (arrivals.length > 1) res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, arrivals };
}

/**
 * A lease of a day: a delivery sent again before it runs out was taken over (the dead process found by its still
 * heartbeat), whatever the machine's speed; one that waited for the lease would never arrive within the test.
 */
const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_LEASE_SECONDS: '86400' };

describeServed('webhook delivery after a SIGKILL mid-attempt', (t) => {
  it("is taken over by the restarted server, which never waits out the dead one's lease", async () => {
    const served = t.served;
    const receiver = await holdingReceiver();
    const first = await served.start(ENV);
    const api = await served.client(first.url, [...ADMIN, 'webhooks.write']);
    const hook = await api.post(WEBHOOKS, { url: receiver.url, event_types: ['accounting_record.ready_for_export'] });
    expect(hook.status, hook.text).toBe(200);
    const made = await api.post(
      '/internal/v1/accounting/records',
      {
        items: [
          {
            type: 'CARD_EXPENSE_POST',
            review_status: 'READY_FOR_EXPORT',
            amount: { amount: 12.5, currency: 'USD' },
            posted_at: '2026-11-20T09:00:00Z',
          },
        ],
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(made.status, made.text).toBe(200);
    await until('the first attempt under way', () => receiver.arrivals.length === 1);
    const claim = () =>
      served.db.direct
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts', 'claimed_by', 'next_attempt_at'])
        .where('endpoint_id', '=', hook.body.id)
        .executeTakeFirstOrThrow();
    const held = await claim();
    expect(held).toMatchObject({ status: 'PENDING', attempts: 0, claimed_by: expect.any(String) });
    const leaseEnd = Number(held.next_attempt_at);
    // The configured lease, not the default one.
    expect(leaseEnd - receiver.arrivals[0]!.at).toBeGreaterThan(3600 * 1_000_000);

    first.child.kill('SIGKILL');
    await first.exited;
    const killedAt = nowMicros();
    const second = await served.start(ENV);
    const listeningAt = nowMicros();
    await until('the delivery sent again', () => receiver.arrivals.length >= 2);
    // The restarted server judged its predecessor dead by its still heartbeat, and sent the event again before the
    // lease its predecessor took had run out (the old way: not before).
    expect(receiver.arrivals[1]!.at).toBeLessThan(leaseEnd);
    const [a, b] = receiver.arrivals;
    expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id']);
    expect(await verifyWebhook(hook.body.secret, b!.body, b!.headers)).toMatchObject({
      type: 'accounting_record.ready_for_export',
      data: { id: made.body.items[0].id },
    });
    await until('its outcome written', async () => (await claim()).status === 'DELIVERED');
    expect(await claim()).toMatchObject({ status: 'DELIVERED', attempts: 1, claimed_by: null });
    const dispatchers = await served.db.direct.selectFrom('webhook_dispatchers').select('dispatcher_id').execute();
    expect(dispatchers.map((d) => d.dispatcher_id)).not.toContain(held.claimed_by);
    expect(dispatchers).toHaveLength(1);

    report(`webhook takeover after SIGKILL [${t.dialect}]`, {
      restart_ms: Math.round((listeningAt - killedAt) / 1000),
      sent_again_after_kill_ms: Math.round((b!.at - killedAt) / 1000),
    });
    second.child.kill('SIGTERM');
    await second.exited;
    // A clean stop leaves no heartbeat behind for anyone to wait on.
    expect(await served.db.direct.selectFrom('webhook_dispatchers').select('dispatcher_id').execute()).toEqual([]);
  });
});
