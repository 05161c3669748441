import { sql } from 'kysely';
import type { ByDialect, Executor } from '../../db/database.js';
import { unnestInsert } from '../../db/unnest-insert.js';
import { preparedQuery } from '../../speed/prepared.js';
import { EVENTS_CHANNEL } from './events.bell.js';
import type { AccountEventsTable } from './webhooks.tables.js';

/** One event, compiled once: SQLite runs it per event in the caller's write transaction (`each`). */
// A mapped copy of the row type: an interface is no Record<string, unknown>.
const insertOne = preparedQuery<{ [K in keyof AccountEventsTable]: AccountEventsTable[K] }>()((ex, p) =>
  ex.insertInto('account_events').values({
    account_id: p('account_id'),
    seq: p('seq'),
    event_id: p('event_id'),
    type: p('type'),
    occurred_at: p('occurred_at'),
    data_json: p('data_json'),
  }),
);

/**
 * SQLite: one compiled INSERT run per event (a call, not a round trip). PostgreSQL: one statement for the whole
 * batch (`unnestInsert`).
 */
const insertManyBy: ByDialect<(ex: Executor, rows: readonly AccountEventsTable[]) => Promise<unknown>> = {
  sqlite: (ex, rows) => insertOne.each(ex, rows),
  postgres: (ex, rows) =>
    unnestInsert(
      ex,
      'account_events',
      [
        ['account_id', 'text'],
        ['seq', 'bigint'],
        ['event_id', 'text'],
        ['type', 'text'],
        ['occurred_at', 'bigint'],
        ['data_json', 'text'],
      ],
      rows,
    ),
};

export const eventsRepository = {
  /**
   * Hands out `count` consecutive seqs of the account's events and answers the first. The counter's row stays
   * locked until the caller's transaction ends (PostgreSQL: the upsert's row lock; SQLite: the write
   * transaction), so the account's events commit in seq order and a reader never sees a seq before a smaller one.
   */
  /** The account's last event seq (0 before its first event). */
  async lastSeq(ex: Executor, accountId: string): Promise<number> {
    const row = await ex
      .selectFrom('account_event_counters')
      .select('last_seq')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ? Number(row.last_seq) : 0;
  },

  async reserve(ex: Executor, accountId: string, count: number): Promise<number> {
    const upsert = ex
      .insertInto('account_event_counters')
      .values({ account_id: accountId, last_seq: count })
      .onConflict((oc) =>
        oc.column('account_id').doUpdateSet({ last_seq: sql<number>`account_event_counters.last_seq + ${count}` }),
      );
    // PostgreSQL: the same statement tells every node's dispatcher, with the commit (events.bell.ts; one per
    // transaction however many events, as PostgreSQL folds a transaction's equal notifications into one).
    const row = await (
      ex.dialect === 'postgres'
        ? upsert.returning(['last_seq', sql<string>`pg_notify(${EVENTS_CHANNEL}, '')`.as('told')])
        : upsert.returning('last_seq')
    ).executeTakeFirstOrThrow();
    return Number(row.last_seq) - count + 1;
  },

  async insertMany(ex: Executor, rows: readonly AccountEventsTable[]): Promise<void> {
    if (rows.length > 0) await insertManyBy[ex.dialect](ex, rows);
  },

  /** The account's events after `afterSeq` (of `types`, or but `except`), in seq order; fetches limit + 1. */
  async page(
    ex: Executor,
    accountId: string,
    afterSeq: number,
    limit: number,
    filter: { types: readonly string[] } | { except: string },
  ): Promise<AccountEventsTable[]> {
    let query = ex
      .selectFrom('account_events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('seq', '>', afterSeq);
    query = 'types' in filter ? query.where('type', 'in', [...filter.types]) : query.where('type', '<>', filter.except);
    return query
      .orderBy('seq')
      .limit(limit + 1)
      .execute();
  },

  async find(ex: Executor, accountId: string, eventId: string): Promise<AccountEventsTable | undefined> {
    return ex
      .selectFrom('account_events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('event_id', '=', eventId)
      .executeTakeFirst();
  },

  /** The account's events of `types` that occurred at or after `since`, after `afterSeq`, in seq order. */
  async since(
    ex: Executor,
    accountId: string,
    since: number,
    types: readonly string[],
    afterSeq: number,
    limit: number,
  ): Promise<{ event_id: string; seq: number }[]> {
    return ex
      .selectFrom('account_events')
      .select(['event_id', 'seq'])
      .where('account_id', '=', accountId)
      .where('occurred_at', '>=', since)
      .where('seq', '>', afterSeq)
      .where('type', 'in', [...types])
      .orderBy('seq')
      .limit(limit)
      .execute();
  },

  /** Deletes the events that occurred before `before` (every account); answers how many. */
  async deleteBefore(ex: Executor, before: number): Promise<number> {
    let deleted = 0;
    const accounts = await ex.selectFrom('account_event_counters').select('account_id').execute();
    for (const { account_id } of accounts) {
      const result = await ex
        .deleteFrom('account_events')
        .where('account_id', '=', account_id)
        .where('occurred_at', '<', before)
        .executeTakeFirst();
      deleted += Number(result.numDeletedRows);
    }
    return deleted;
  },
};
