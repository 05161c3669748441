import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { Ended } from '../../src/modules/webhooks/webhooks.attempt.js';
import { LEASE, type Claimed, type Dispatcher } from '../../src/modules/webhooks/webhooks.dispatcher.js';
import type { StatementGroups } from '../../src/speed/statement-groups.js';
import type { TestContext } from './context.js';
import { DELIVERY_SCOPES, startReceiver, subscribe, type Behaviour } from './webhooks.js';

/**
 * What the tests of outcomes written together share (test/webhooks.grouped-outcomes.test.ts,
 * test/webhooks.outcome-groups.test.ts).
 */

/** Every transaction that holds the attempt of `eventId` fails at its commit (a deferred constraint), until undone. */
export async function commitsFailFor(ctx: TestContext, eventId: string): Promise<() => Promise<void>> {
  const ex = ctx.db.direct;
  await sql`create table gw_parent (id text primary key)`.execute(ex);
  await sql`create table gw_child (parent_id text not null references gw_parent (id) deferrable initially deferred)`.execute(
    ex,
  );
  if (ctx.dialect === 'sqlite') {
    await sql`create trigger gw_fail after insert on webhook_attempts when new.event_id = ${sql.lit(eventId)}
      begin insert into gw_child (parent_id) values ('missing'); end`.execute(ex);
  } else {
    await sql`create function gw_fail() returns trigger language plpgsql as $$
      begin insert into gw_child (parent_id) values ('missing'); return new; end $$`.execute(ex);
    await sql`create trigger gw_fail after insert on webhook_attempts for each row
      when (new.event_id = ${sql.lit(eventId)}) execute function gw_fail()`.execute(ex);
  }
  return async () => {
    if (ctx.dialect === 'sqlite') await sql`drop trigger gw_fail`.execute(ex);
    else {
      await sql`drop trigger gw_fail on webhook_attempts`.execute(ex);
      await sql`drop function gw_fail()`.execute(ex);
    }
    await sql`drop table gw_child`.execute(ex);
    await sql`drop table gw_parent`.execute(ex);
  };
}

export const kysely = (ctx: TestContext) => ctx.db.direct as Kysely<any>;

/** The endpoint's deliveries as stored, by event id. */
export const storedDeliveries = async (ctx: TestContext, endpointId: string) =>
  (
    await kysely(ctx)
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'status', 'attempts', 'lease_token'])
      .where('endpoint_id', '=', endpointId)
      .orderBy('event_id')
      .execute()
  ).map((r) => ({ ...r, attempts: Number(r.attempts) }));

/** The endpoint's logged attempts, by event id. */
export const attemptRows = async (ctx: TestContext, endpointId: string) =>
  (
    await kysely(ctx)
      .selectFrom('webhook_attempts')
      .select(['event_id', 'status_code', 'succeeded', 'response_excerpt', 'error'])
      .where('endpoint_id', '=', endpointId)
      .orderBy('event_id')
      .execute()
  ).map((r) => ({
    ...r,
    status_code: r.status_code === null ? null : Number(r.status_code),
    succeeded: Number(r.succeeded),
  }));

/** The first `count` outcomes are handed to the groups in one turn (one group); later ones at once. */
export function firstTogether(count: number): (groups: StatementGroups<Ended>) => StatementGroups<Ended> {
  return (groups) => {
    const gate: (() => void)[] = [];
    let asked = 0;
    return {
      write: (ended, then, freed) =>
        new Promise((resolve, reject) => {
          const go = () => void groups.write(ended, then, freed).then(resolve, reject);
          if (++asked > count) return go();
          gate.push(go);
          if (gate.length === count) for (const release of gate.splice(0)) release();
        }),
    };
  };
}

/**
 * The test's database, its write transactions counted (and those that failed), each one's kind in order: `lazy` when
 * its commit need not wait for the disk (`WriteOptions.durable` false), else `durable`; and in `jit`, `off` when it
 * was opened without JIT (`WriteOptions.jit` false), else `default`.
 */
export function counted(db: Db): {
  db: Db;
  writes: number;
  failed: number;
  kinds: ('lazy' | 'durable')[];
  jit: ('off' | 'default')[];
} {
  const counts = { db, writes: 0, failed: 0, kinds: [] as ('lazy' | 'durable')[], jit: [] as ('off' | 'default')[] };
  counts.db = {
    ...db,
    write: (work, options) => {
      counts.writes++;
      counts.kinds.push(options?.durable === false ? 'lazy' : 'durable');
      counts.jit.push(options?.jit === false ? 'off' : 'default');
      return db.write(work, options).catch((error: unknown) => {
        counts.failed++;
        throw error;
      });
    },
  };
  return counts;
}

/**
 * The commit of the group holding the fourth claimed outcome fails (its attempt's row breaks a deferred constraint),
 * then: that outcome is refused, written alone too; the others are written, and each event was sent once (none of
 * the claims the rolled-back group made was attempted); once its lease runs out, the refused delivery is delivered.
 * Answers the events, in the order they were sent.
 */
export async function aGroupFailsAtCommit(run: {
  ctx: TestContext;
  receiver: { received: { headers: Record<string, unknown> }[]; release(): void };
  endpointId: string;
  dispatcher: Dispatcher;
  claimed: Claimed[];
  advance(seconds: number): void;
  events: number;
}): Promise<string[]> {
  const { ctx, receiver, endpointId, dispatcher, claimed, events: count } = run;
  const failing = claimed[3]!.event_id;
  const undo = await commitsFailFor(ctx, failing);
  try {
    receiver.release();
    // The failing outcome is not written, alone either; the seven others are, and their places claimed the rest.
    const outcomes = await Promise.allSettled(claimed.map((c) => c.settled));
    expect(outcomes.map((o) => o.status)).toEqual(
      claimed.map((c) => (c.event_id === failing ? 'rejected' : 'fulfilled')),
    );
    await dispatcher.settled();
  } finally {
    await undo();
  }
  const sent = receiver.received.map((r) => r.headers['webhook-id'] as string);
  expect(sent).toHaveLength(count);
  expect(new Set(sent).size).toBe(count);
  const events = sent.slice().sort();
  expect(await storedDeliveries(ctx, endpointId)).toEqual(
    events.map((event_id) =>
      event_id === failing
        ? { event_id, status: 'PENDING', attempts: 0, lease_token: expect.any(String) }
        : { event_id, status: 'DELIVERED', attempts: 1, lease_token: null },
    ),
  );
  expect((await attemptRows(ctx, endpointId)).map((a) => a.event_id)).toEqual(events.filter((e) => e !== failing));

  run.advance(LEASE / 1_000_000 + 1);
  const again = await dispatcher.runOnce();
  expect([again.attempted, again.delivered]).toEqual([1, 1]);
  expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([...sent, failing]);
  expect((await storedDeliveries(ctx, endpointId)).every((d) => d.status === 'DELIVERED' && d.attempts === 1)).toBe(
    true,
  );
  expect((await attemptRows(ctx, endpointId)).map((a) => a.event_id)).toEqual(events);
  return sent;
}

/**
 * An account with an endpoint on a new receiver whose first `planned` requests are answered `behaviour`, and
 * `events` records made ready for export (an event each, a delivery each).
 */
export async function endpointWithEvents(ctx: TestContext, events: number, behaviour: Behaviour, planned: number) {
  const api = await ctx.as(DELIVERY_SCOPES);
  const receiver = await startReceiver();
  receiver.plan(Array<Behaviour>(planned).fill(behaviour));
  const hook = await subscribe(api, receiver.url);
  for (let i = 0; i < events; i++) await api.readyRecord();
  return { api, receiver, hook };
}
