import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { authService } from '../../src/modules/auth/auth.service.js';
import { RECORDS } from '../support/accounting.js';
import { valuesUrl } from '../support/field-values.js';
import { describeMultiNode, SIGN_IN_LIMIT, token, TOKEN_LIMIT, untilAnswered, WINDOW } from '../support/multi-node.js';
import { HttpApi, report, type HttpResponse } from '../support/reliability.js';
import { storedValues } from '../support/stored.js';
import { until } from '../support/wait.js';

const N = 50;

/**
 * Three svc nodes behind HAProxy (test/support/multi-node.ts): one key raced over the three, a node drained under
 * traffic, the rate limits shared through Redis. The chaos (nodes killed, PostgreSQL restarted) is
 * multi-node-chaos.test.ts.
 */
describeMultiNode('three nodes behind HAProxy', (cluster) => {
  it(`runs one write for ${N} requests under one key sent to three nodes at once`, async () => {
    const api = await cluster().client(cluster().lb.url);
    const field = await api.post('/v1/fields', { name: 'race', group: 'USER' }, { 'idempotency-key': randomUUID() });
    expect(field.status).toBe(200);
    const key = randomUUID();
    const body = { items: Array.from({ length: 10 }, (_, i) => ({ value: `v${i}` })) };
    const at = cluster().nodes.map((n) => new HttpApi(n.url, api.token, api.accountId, api.clientId));
    const responses = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        at[i % 3]!.post(valuesUrl(field.body.svc_id), body, { 'idempotency-key': key }),
      ),
    );
    const firsts = responses.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] !== 'true');
    expect(firsts).toHaveLength(1);
    for (const r of responses) {
      if (r.status === 409) expect(r.body.error_code).toBe('IDEMPOTENCY_KEY_IN_USE');
      else expect({ status: r.status, body: r.body }).toEqual({ status: 200, body: firsts[0]!.body });
    }
    expect(await storedValues({ db: cluster().db }, api.accountId, field.body.svc_id)).toHaveLength(10);
    report('multi-node race', {
      nodes: 3,
      requests: N,
      ran: firsts.length,
      replayed: responses.filter((r) => r.headers['idempotent-replayed'] === 'true').length,
      in_use: responses.filter((r) => r.status === 409).length,
    });
  });

  it('drains a node stopped with SIGTERM: no request through the balancer fails', async () => {
    await cluster().allInRotation();
    const api = await cluster().client(cluster().lb.url);
    const field = await untilAnswered(() =>
      api.post('/v1/fields', { name: 'drain', group: 'USER' }, { 'idempotency-key': randomUUID() }),
    );
    const statuses: Record<string, number> = {};
    const answered = () => Object.values(statuses).reduce((a, b) => a + b, 0);
    let stop = false;
    const loop = async (send: () => Promise<HttpResponse>) => {
      while (!stop) {
        const res = await send().catch(() => null);
        const label =
          res === null ? 'network error' : `${res.status}${res.headers['x-request-id'] ? '' : ' (HAProxy)'}`;
        statuses[label] = (statuses[label] ?? 0) + 1;
      }
    };
    const write = () =>
      api.post(valuesUrl(field.body.svc_id), { items: [{ value: randomUUID() }] }, { 'idempotency-key': randomUUID() });
    const traffic = Promise.all([
      loop(() => api.get(`/v1/fields/${field.body.svc_id}`)),
      loop(() => api.get(`/v1/fields/${field.body.svc_id}`)),
      loop(() => api.get(RECORDS, { limit: '5' })),
      loop(write),
      loop(write),
    ]);
    await until('traffic through the balancer', () => answered() >= 50);
    const node = cluster().nodes[1]!;
    const server = node.server!;
    node.server = null;
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    // Traffic goes on after the node has gone: the balancer sends it to the other two.
    const atExit = answered();
    await until('traffic after the drain', () => answered() >= atExit + 50);
    stop = true;
    await traffic;
    await node.up();
    expect([exit.code, exit.signal]).toEqual([0, null]);
    // On failure, HAProxy's log lines other than 200s say which node answered what.
    const log = cluster()
      .lb.output()
      .split('\n')
      .filter((line) => !line.includes(' 200 '));
    expect(Object.keys(statuses), log.slice(-40).join('\n')).toEqual(['200']);
    report('multi-node drain', { requests: statuses['200'] ?? 0 });
  });

  it('spends one rate-limit budget across the nodes (Redis)', async () => {
    await cluster().allInRotation();
    const creds = await authService.createClient(cluster().db, cluster().accountId, ['fields.read']);
    // One client address (X-Forwarded-For, trusted with TRUST_PROXY) asking each node in turn.
    const address = `203.0.113.${1 + (randomBytes(1)[0]! % 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < TOKEN_LIMIT + 6; i++) {
      const res = await token(cluster().nodes[i % 3]!.url, creds, address);
      await res.text();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(TOKEN_LIMIT).fill(200), ...Array(6).fill(429)]);
  });

  it('takes the client address HAProxy saw, never the X-Forwarded-For the client wrote (issue 28, finding 3)', async () => {
    await cluster().allInRotation();
    // This run's counter of the test's own address (127.0.0.1) starts empty, whatever an earlier run left.
    const redis = new Redis('redis://127.0.0.1:6379');
    const stale = await redis.keys(`svc:rl:w${WINDOW}:*sign-in:ip:127.0.0.1`);
    if (stale.length > 0) await redis.del(...stale);
    redis.disconnect();
    const statuses: number[] = [];
    for (let i = 0; i < SIGN_IN_LIMIT + 3; i++) {
      // Each attempt claims another address: with the client's header trusted, each would have a budget of its own.
      const res = await fetch(`${cluster().lb.url}/auth/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${i + 1}` },
        // Another email each time: the sign-in throttle (5 failures per email and address) stays out of the way.
        body: JSON.stringify({ email: `nobody${i}@example.com`, password: 'not the password at all' }),
      });
      await res.text();
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array(SIGN_IN_LIMIT).fill(401), ...Array(3).fill(429)]);
  });
});
