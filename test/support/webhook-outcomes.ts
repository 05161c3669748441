import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { Ended } from '../../src/modules/webhooks/webhooks.attempt.js';
import type { OutcomeGroups } from '../../src/modules/webhooks/webhooks.outcome-groups.js';
import type { TestContext } from './context.js';

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
export function firstTogether(count: number): (groups: OutcomeGroups<Ended>) => OutcomeGroups<Ended> {
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

/** The test's database, its write transactions counted (and those that failed). */
export function counted(db: Db): { db: Db; writes: number; failed: number } {
  const counts = { db, writes: 0, failed: 0 };
  counts.db = {
    ...db,
    write: (work) => {
      counts.writes++;
      return db.write(work).catch((error: unknown) => {
        counts.failed++;
        throw error;
      });
    },
  };
  return counts;
}
