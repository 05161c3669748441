import type { Kysely } from 'kysely';
import { expect, it, onTestFinished } from 'vitest';
import {
  ACCOUNT_CONCURRENCY,
  DELIVERY_CONCURRENCY,
  ENDPOINT_CONCURRENCY,
  type Claimed,
} from '../src/modules/webhooks/webhooks.dispatcher.js';
import { MAX_ENDPOINTS_PER_ACCOUNT } from '../src/modules/webhooks/webhooks.service.js';
import { ADMIN } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { startReceiver, startTarpit, testDispatcher, WEBHOOKS, webhookUrl } from './support/webhooks.js';

const SCOPES = [...ADMIN, 'webhooks.write'] as const;
const READY = ['accounting_record.ready_for_export'];
/** Tarpits never answer: their attempts last as long as the test unless it drops them (never by the clock). */
const NEVER = 10 * 60_000;

async function subscribe(api: Api, url: string): Promise<string> {
  const res = await api.create(WEBHOOKS, { url, event_types: READY });
  expect(res.status, res.text).toBe(200);
  return res.body.id as string;
}

/** The account's deliveries as stored: status, attempts, and whether a claim holds it. */
async function deliveryRows(ctx: TestContext, accountId: string) {
  const rows = await (ctx.db.direct as Kysely<any>)
    .selectFrom('webhook_deliveries')
    .select(['endpoint_id', 'event_id', 'status', 'attempts', 'lease_token'])
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((r) => ({ ...r, claimed: r.lease_token !== null, lease_token: undefined }));
}

const accountsOf = (claimed: Claimed[]) => claimed.map((c) => c.account_id);

/**
 * When the test ends, however it ends: the tarpit lets go, the dispatcher's attempts end, and the accounts'
 * endpoints go with their deliveries, so that the next test's dispatcher finds nothing of this one's due.
 */
function cleanUp(dispatcher: { settled(): Promise<void> }, tarpit: { close(): Promise<void> } | null, apis: Api[]) {
  onTestFinished(async () => {
    await tarpit?.close();
    await dispatcher.settled();
    for (const api of apis) {
      for (const hook of (await api.get(WEBHOOKS, { limit: '100' })).body.items) {
        expect((await api.delete(webhookUrl(hook.id))).status).toBe(200);
      }
    }
  });
}

/** How many of the claims' attempts have ended so far (watched from now on). */
function ended(claimed: Claimed[]): () => number {
  let count = 0;
  for (const c of claimed) void c.settled.finally(() => count++).catch(() => {});
  return () => count;
}

describeEachDialect(
  'webhook delivery: one account cannot hold up another',
  (t) => {
    it("claims another account's delivery at the next step while tarpits hold the first account's bound of attempts", async () => {
      expect([DELIVERY_CONCURRENCY, ACCOUNT_CONCURRENCY, ENDPOINT_CONCURRENCY]).toEqual([64, 16, 8]);
      const a = await t.ctx.as(SCOPES);
      const b = await t.ctx.as(SCOPES);
      const tarpit = await startTarpit();
      const receiver = await startReceiver();
      for (let i = 0; i < MAX_ENDPOINTS_PER_ACCOUNT; i++) await subscribe(a, `${tarpit.url}/a/${i}`);
      await a.newRecords(Array.from({ length: 4 }, () => ({ review_status: 'READY_FOR_EXPORT' })));
      const dispatcher = testDispatcher(t.ctx.db, { timeoutMs: NEVER });
      cleanUp(dispatcher, tarpit, [a, b]);

      // A's 80 deliveries are due, more than the dispatcher's 64 places; A gets its bound of them, each to another
      // of its endpoints, and no more, though 48 places stay free.
      const first = await dispatcher.step();
      expect([first.fanned, first.claimed.length]).toEqual([80, ACCOUNT_CONCURRENCY]);
      expect(new Set(accountsOf(first.claimed))).toEqual(new Set([a.accountId]));
      expect(new Set(first.claimed.map((c) => c.endpoint_id)).size).toBe(ACCOUNT_CONCURRENCY);
      await tarpit.holding(ACCOUNT_CONCURRENCY);
      const aEnded = ended(first.claimed);

      // B's event comes after A's 64 waiting deliveries were due: B's delivery is claimed at the next step, alone,
      // and delivered while A's attempts still hang; its outcome hands its place to nobody (A is at its bound).
      const bHook = await subscribe(b, receiver.url);
      await b.readyRecord();
      const second = await dispatcher.step();
      expect([second.fanned, accountsOf(second.claimed)]).toEqual([1, [b.accountId]]);
      expect(await second.claimed[0]!.settled).toBe(true);
      expect(await second.claimed[0]!.next).toEqual([]);
      expect(aEnded()).toBe(0);
      expect(tarpit.held()).toBe(ACCOUNT_CONCURRENCY);
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([second.claimed[0]!.event_id]);
      const log = (await b.get(`${webhookUrl(bHook)}/attempts`)).body.items;
      expect(log.map((x: any) => [x.status_code, x.succeeded])).toEqual([[200, true]]);
      expect(await deliveryRows(t.ctx, b.accountId)).toEqual([
        expect.objectContaining({ status: 'DELIVERED', attempts: 1, claimed: false }),
      ]);
      const aRows = await deliveryRows(t.ctx, a.accountId);
      expect(aRows.filter((r) => r.status === 'PENDING' && r.claimed)).toHaveLength(ACCOUNT_CONCURRENCY);
      expect(aRows.filter((r) => r.status === 'PENDING' && !r.claimed && r.attempts === 0)).toHaveLength(64);

      // And again: each new event of B's is taken at once; A gets nothing more while its bound is held.
      await b.readyRecord();
      const third = await dispatcher.step();
      expect(accountsOf(third.claimed)).toEqual([b.accountId]);
      expect(await third.claimed[0]!.settled).toBe(true);
      expect(receiver.received).toHaveLength(2);
      expect((await dispatcher.step()).claimed).toEqual([]);

      // The tarpits let go: A's attempts fail, each handing its place to A's next delivery (refused at once now),
      // until each of A's 80 has been attempted once and waits for its retry.
      await tarpit.close();
      await dispatcher.settled();
      expect(aEnded()).toBe(ACCOUNT_CONCURRENCY);
      const after = await deliveryRows(t.ctx, a.accountId);
      expect(after.filter((r) => r.status === 'PENDING' && r.attempts === 1 && !r.claimed)).toHaveLength(80);
    });

    it('gives a place that frees to the account with no attempt under way, before the older backlog of the one holding every place', async () => {
      const a = await t.ctx.as(SCOPES);
      const b = await t.ctx.as(SCOPES);
      const tarpit = await startTarpit();
      const receiver = await startReceiver();
      for (let i = 0; i < MAX_ENDPOINTS_PER_ACCOUNT; i++) await subscribe(a, `${tarpit.url}/a/${i}`);
      await a.readyRecord();
      await a.readyRecord();
      // The finding's dispatcher: 8 places, all of which one account may take.
      const dispatcher = testDispatcher(t.ctx.db, { timeoutMs: NEVER, concurrency: 8 });
      cleanUp(dispatcher, tarpit, [a, b]);
      const first = await dispatcher.step();
      expect(accountsOf(first.claimed)).toEqual(Array(8).fill(a.accountId));
      await tarpit.holding(8);

      await subscribe(b, receiver.url);
      await b.readyRecord();
      const full = await dispatcher.step();
      expect([full.fanned, full.claimed]).toEqual([1, []]); // no place is free

      // One tarpit lets go: its attempt fails, and its outcome hands the free place to B (none under way), not to A
      // (seven, and an older backlog of 32).
      tarpit.dropOne();
      const freed = await Promise.race(first.claimed.map((c) => c.next));
      expect(accountsOf(freed)).toEqual([b.accountId]);
      expect(await freed[0]!.settled).toBe(true);
      expect(receiver.received).toHaveLength(1);
    });

    it("bounds the attempts to one endpoint: a tarpit holds its own places, the account's other endpoint goes on", async () => {
      const a = await t.ctx.as(SCOPES);
      const tarpit = await startTarpit();
      const receiver = await startReceiver();
      const slow = await subscribe(a, `${tarpit.url}/slow`);
      const fine = await subscribe(a, receiver.url);
      await a.newRecords(Array.from({ length: 12 }, () => ({ review_status: 'READY_FOR_EXPORT' })));
      const dispatcher = testDispatcher(t.ctx.db, { timeoutMs: NEVER });
      cleanUp(dispatcher, tarpit, [a]);

      // The account's 16 places: 8 to each endpoint (its bound), though each has 12 due.
      const first = await dispatcher.step();
      const to = (claimed: Claimed[], endpoint: string) => claimed.filter((c) => c.endpoint_id === endpoint);
      expect([to(first.claimed, slow).length, to(first.claimed, fine).length]).toEqual([8, 8]);
      await tarpit.holding(ENDPOINT_CONCURRENCY);

      // The fine endpoint's attempts end and hand their places on: to its own four still due, never to the slow
      // endpoint's four (its bound is held), though the account has room.
      const handedOn: Claimed[] = [];
      const follow = async (claims: Claimed[]): Promise<void> => {
        await Promise.all(
          claims.map(async (c) => {
            expect(await c.settled).toBe(true);
            const next = await c.next;
            handedOn.push(...next);
            await follow(to(next, fine));
          }),
        );
      };
      await follow(to(first.claimed, fine));
      expect([to(handedOn, slow).length, to(handedOn, fine).length]).toEqual([0, 4]);
      expect((await dispatcher.step()).claimed).toEqual([]);
      expect(receiver.received).toHaveLength(12);
      expect(tarpit.held()).toBe(ENDPOINT_CONCURRENCY);
      const rows = await deliveryRows(t.ctx, a.accountId);
      expect(rows.filter((r) => r.endpoint_id === slow && r.claimed)).toHaveLength(ENDPOINT_CONCURRENCY);
      expect(rows.filter((r) => r.endpoint_id === slow && !r.claimed && r.attempts === 0)).toHaveLength(4);
      expect(rows.filter((r) => r.endpoint_id === fine && r.status === 'DELIVERED')).toHaveLength(12);
    });

    it("the running loop delivers another account's events while the first one's tarpits hang", async () => {
      const a = await t.ctx.as(SCOPES);
      const b = await t.ctx.as(SCOPES);
      const tarpit = await startTarpit();
      const receiver = await startReceiver();
      for (let i = 0; i < MAX_ENDPOINTS_PER_ACCOUNT; i++) await subscribe(a, `${tarpit.url}/a/${i}`);
      await subscribe(b, receiver.url);
      // The server's way: the loop, steps after steps; tarpits that never answer, a clock that never moves on.
      const dispatcher = testDispatcher(t.ctx.db, { timeoutMs: NEVER, idleMs: 20 });
      cleanUp({ settled: () => dispatcher.stop() }, tarpit, [a, b]);
      await a.newRecords(Array.from({ length: 5 }, () => ({ review_status: 'READY_FOR_EXPORT' })));
      dispatcher.start();
      await tarpit.holding(ACCOUNT_CONCURRENCY);
      for (let n = 1; n <= 3; n++) {
        const record = await b.readyRecord();
        await receiver.arrived(n);
        expect(JSON.parse(receiver.received.at(-1)!.body).data.id).toBe(record.id);
      }
      expect(tarpit.held()).toBe(ACCOUNT_CONCURRENCY);
    });

    it('stops handing out places once stopped: the attempts under way end, the backlog waits', async () => {
      const a = await t.ctx.as(SCOPES);
      const tarpit = await startTarpit();
      const slow = await subscribe(a, `${tarpit.url}/slow`);
      await a.newRecords(Array.from({ length: 20 }, () => ({ review_status: 'READY_FOR_EXPORT' })));
      const dispatcher = testDispatcher(t.ctx.db, { timeoutMs: NEVER });
      cleanUp(dispatcher, tarpit, [a]);
      dispatcher.start();
      await tarpit.holding(ENDPOINT_CONCURRENCY);
      const stopped = dispatcher.stop();
      await tarpit.close(); // the attempts under way fail at once; their places go to nobody
      await stopped;
      const rows = (await deliveryRows(t.ctx, a.accountId)).filter((r) => r.endpoint_id === slow);
      expect(rows.filter((r) => r.attempts === 1)).toHaveLength(ENDPOINT_CONCURRENCY);
      expect(rows.filter((r) => r.attempts === 0 && !r.claimed)).toHaveLength(20 - ENDPOINT_CONCURRENCY);
    });

    it('makes deliveries of new events in bounded turns: a backlog of thousands takes steps, not one transaction', async () => {
      const a = await t.ctx.as(SCOPES);
      const b = await t.ctx.as(SCOPES);
      const receiver = await startReceiver();
      // A's endpoints take the compatible event only (one per change): every event is looked at, few delivered.
      const aHooks: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await a.create(WEBHOOKS, {
          url: `${receiver.url}/a/${i}`,
          event_types: ['ACCOUNTING_RECORD_READY_FOR_EXPORT'],
        });
        aHooks.push(res.body.id);
      }
      await subscribe(b, receiver.url);
      await a.newRecords(Array.from({ length: 300 }, () => ({ review_status: 'READY_FOR_EXPORT' })));
      await b.readyRecord();
      const dispatcher = testDispatcher(t.ctx.db);
      cleanUp(dispatcher, null, [a, b]);
      const scanned: number[] = [];
      let bFannedAt: number | undefined;
      for (let step = 1; scanned.at(-1) !== 0 && step <= 20; step++) {
        scanned.push((await dispatcher.step()).scanned);
        if (bFannedAt === undefined && (await deliveryRows(t.ctx, b.accountId)).length === 1) bFannedAt = step;
      }
      await dispatcher.settled();
      // Each record's event and the change's compatible one: 301 events for each of A's endpoints and 2 for B's,
      // at most 1000 a step (200 an endpoint); B's turn within the first three steps whatever the accounts' keys.
      expect(scanned.every((n) => n <= 1000)).toBe(true);
      expect(scanned.reduce((x, y) => x + y, 0)).toBe(10 * 301 + 2);
      expect(bFannedAt).toBeLessThanOrEqual(3);
      const rows = await deliveryRows(t.ctx, a.accountId);
      expect(
        aHooks.map((hook) => rows.filter((r) => r.endpoint_id === hook && r.status === 'DELIVERED').length),
      ).toEqual(Array(10).fill(1));
      expect(receiver.received).toHaveLength(11);
    });
  },
  { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
);
