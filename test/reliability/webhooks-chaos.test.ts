import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it, onTestFinished } from 'vitest';
import { verifyWebhook } from '../../client/src/webhooks.js';
import { ADMIN } from '../support/accounting.js';
import type { HttpApi } from '../support/reliability.js';
import { describeServed, report } from '../support/reliability.js';
import { until } from '../support/wait.js';
import { WEBHOOKS } from '../support/webhooks.js';

/** A delivery as the receiver saw it. */
interface Arrival {
  webhookId: string;
  recordId: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver that takes `delayMs` to answer 200 (so that a SIGKILL can land during a delivery), and counts how many
 * attempts of one delivery (one webhook-id) it holds at once.
 */
async function slowReceiver(delayMs: number) {
  const arrivals: Arrival[] = [];
  const inFlight = new Map<string, number>();
  let mostAtOnce = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const webhookId = String(req.headers['webhook-id']);
      const now = (inFlight.get(webhookId) ?? 0) + 1;
      inFlight.set(webhookId, now);
      mostAtOnce = Math.max(mostAtOnce, now);
      const body = Buffer.concat(chunks).toString('utf8');
      setTimeout(() => {
        inFlight.set(webhookId, (inFlight.get(webhookId) ?? 1) - 1);
        arrivals.push({ webhookId, recordId: JSON.parse(body).data.id, headers: req.headers, body });
        res.writeHead(200).end('ok');
      }, delayMs);
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
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    mostAtOnce: () => mostAtOnce,
  };
}

const ENV = { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
/**
 * A delivery claimed by a process that died is taken over once its heartbeat has stood still for
 * WEBHOOK_TAKEOVER_SECONDS (5 s; test/reliability/webhooks-takeover.test.ts), or at worst when its 60 s lease runs
 * out: the ceiling of the wait for every delivery is three leases, far above either.
 */
const DELIVERED_WITHIN_MS = 180_000;

async function subscribe(api: HttpApi, url: string): Promise<string> {
  const hook = await api.post(WEBHOOKS, { url, event_types: ['accounting_record.ready_for_export'] });
  expect(hook.status, hook.text).toBe(200);
  return hook.body.secret as string;
}

/** One READY_FOR_EXPORT record through the API, with an Idempotency-Key; null when no answer came. */
async function readyRecord(api: HttpApi): Promise<string | null> {
  try {
    const res = await api.post(
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
    return res.status === 200 ? (res.body.items[0].id as string) : null;
  } catch {
    return null; // the server was killed under the request: it may or may not have committed
  }
}

/** The account's records as stored: what committed, whatever the answers said. */
async function committedIds(api: HttpApi, db: { direct: any }): Promise<Set<string>> {
  const rows: { id: string }[] = await db.direct
    .selectFrom('accounting_records')
    .select('id')
    .where('account_id', '=', api.accountId)
    .execute();
  return new Set(rows.map((r) => r.id));
}

describeServed('webhooks under SIGKILL', (t) => {
  it("delivers every committed change's event at least once through SIGKILLs (some during deliveries), each signed, and none for work that did not commit", async () => {
    const served = t.served;
    const receiver = await slowReceiver(80);
    let server = await served.start(ENV);
    const api = await served.client(server.url, [...ADMIN, 'webhooks.write']);
    const secret = await subscribe(api, receiver.url);

    let stop = false;
    const acknowledged: string[] = [];
    let unanswered = 0;
    const writer = (async () => {
      while (!stop) {
        const id = await readyRecord(api);
        if (id) acknowledged.push(id);
        else {
          unanswered++;
          await sleep(100);
        }
      }
    })();
    const KILLS = 5;
    for (let kill = 0; kill < KILLS; kill++) {
      // Each kill lands after the writer has made progress on this server (however long its start took), at a
      // random moment after: a loaded machine still kills work under way, not a server that has done nothing.
      const before = acknowledged.length;
      await until('a record acknowledged by this server', () => acknowledged.length > before);
      await sleep(Math.random() * 800);
      server.child.kill('SIGKILL');
      await server.exited;
      server = await served.start(ENV);
      api.base = server.url;
    }
    await sleep(500);
    stop = true;
    await writer;

    expect(acknowledged.length).toBeGreaterThanOrEqual(KILLS);
    const committed = await committedIds(api, served.db);
    for (const id of acknowledged) expect(committed.has(id)).toBe(true);
    const delivered = () => new Set(receiver.arrivals.map((a) => a.recordId));
    await until('every committed record delivered', () => [...committed].every((id) => delivered().has(id)), {
      ceilingMs: DELIVERED_WITHIN_MS,
    });
    // Nothing but committed work was announced, and every delivery verifies.
    expect([...delivered()].filter((id) => !committed.has(id))).toEqual([]);
    for (const arrival of receiver.arrivals) {
      const event = await verifyWebhook(secret, arrival.body, arrival.headers);
      expect(event).toMatchObject({ type: 'accounting_record.ready_for_export', data: { id: arrival.recordId } });
    }
    // The same delivery keeps its webhook-id on every attempt.
    const idsOf = new Map<string, Set<string>>();
    for (const a of receiver.arrivals) idsOf.set(a.recordId, (idsOf.get(a.recordId) ?? new Set()).add(a.webhookId));
    expect([...idsOf.values()].filter((ids) => ids.size > 1)).toEqual([]);
    report(`webhooks under SIGKILL [${t.dialect}]`, {
      kills: KILLS,
      acknowledged: acknowledged.length,
      committed: committed.size,
      unanswered,
      deliveries: receiver.arrivals.length,
      delivered_twice: receiver.arrivals.length - delivered().size,
    });
    server.child.kill('SIGTERM');
    await server.exited;
  });
});

describeServed(
  'webhooks from two processes on one PostgreSQL database',
  (t) => {
    it('delivers each event, never the same delivery from both processes at once', async () => {
      const served = t.served;
      const receiver = await slowReceiver(150);
      const one = await served.start(ENV);
      const two = await served.start(ENV);
      const api = await served.client(one.url, [...ADMIN, 'webhooks.write']);
      const secret = await subscribe(api, receiver.url);
      const other = await served.client(two.url, [...ADMIN], api.accountId);
      const made: string[] = [];
      for (let i = 0; i < 20; i++) {
        const [a, b] = await Promise.all([readyRecord(api), readyRecord(other)]);
        made.push(a!, b!);
      }
      expect(made.every((id) => typeof id === 'string')).toBe(true);
      const delivered = () => new Set(receiver.arrivals.map((a) => a.recordId));
      await until('every event delivered', () => made.every((id) => delivered().has(id)));
      // Both processes drained: every attempt they began has ended, so a second one at once would have shown.
      for (const server of [one, two]) server.child.kill('SIGTERM');
      await Promise.all([one.exited, two.exited]);
      expect(receiver.mostAtOnce()).toBe(1);
      for (const arrival of receiver.arrivals) await verifyWebhook(secret, arrival.body, arrival.headers);
      report(`webhooks on two processes [${t.dialect}]`, {
        events: made.length,
        deliveries: receiver.arrivals.length,
        delivered_twice: receiver.arrivals.length - delivered().size,
      });
    }, 120_000);
  },
  { only: 'postgres' },
);
