import { expect, it, onTestFinished } from 'vitest';
import { startCluster, type ClusterServer } from './support/cluster.js';
import { valuesUrl } from './support/field-values.js';
import { describeServed } from './support/reliability.js';
import { until } from './support/wait.js';
import { DELIVERY_SCOPES, startReceiver, WEBHOOKS } from './support/webhooks.js';

/** The worker pids that logged a completed POST to `route` since `from`, in order. */
const servingPids = (server: ClusterServer, route: string, from: number) =>
  [
    ...server
      .output()
      .slice(from)
      .matchAll(/"pid":(\d+)[^\n]*"method":"POST"[^\n]*"route":"([^"]+)"/g),
  ]
    .filter((m) => m[2] === route)
    .map((m) => Number(m[1]));

/**
 * WORKERS=2: only worker 0 runs the webhook dispatcher, and here it looks for work once an hour. An event committed
 * by either worker must still reach the receiver at once: worker 0's own through its bell, worker 1's through the
 * primary (SQLite) or PostgreSQL's notification (events.bell.ts, cluster-worker.ts).
 */
describeServed("a cluster's webhook dispatcher is woken by every worker's events", (t) => {
  it('delivers at once each event written through either worker, the idle look an hour away', async () => {
    const server = await startCluster({
      DATABASE_URL: t.served.database.url,
      RATE_LIMIT_MAX: '0',
      TOKEN_RATE_LIMIT_MAX: '0',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_POLL_SECONDS: '3600',
    });
    onTestFinished(() => {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    });
    const receiver = await startReceiver();
    const api = await t.served.client(server.url, [...DELIVERY_SCOPES, 'fields.write', 'field_values.write']);
    const close = { connection: 'close' };
    const hook = await api.create(WEBHOOKS, { url: receiver.url, event_types: ['field_values.changed'] }, close);
    expect(hook.status, hook.text).toBe(200);
    const field = await api.create('/v1/fields', { name: 'Department', group: 'ACCOUNTING' }, close);
    expect(field.status, field.text).toBe(200);

    // Each write on a connection of its own (the primary hands each to the next worker), each delivered before the
    // next is written: a write whose event waited for the hourly look would never arrive.
    const route = '/v1/fields/:field_id/values';
    const mark = server.output().length;
    const writes = 4;
    for (let i = 1; i <= writes; i++) {
      const res = await api.create(valuesUrl(field.body.svc_id), { items: [{ value: `Team ${i}` }] }, close);
      expect(res.status, res.text).toBe(200);
      await receiver.arrived(i);
      expect(JSON.parse(receiver.received[i - 1]!.body)).toMatchObject({ type: 'field_values.changed' });
    }
    const pids = await until('the writes in the log', () => {
      const logged = servingPids(server, route, mark);
      return logged.length >= writes && logged;
    });
    // Both workers wrote: worker 1's events too were delivered without the look.
    expect(new Set(pids)).toEqual(new Set(server.workerPids()));
    expect(receiver.received).toHaveLength(writes);
  });
});
