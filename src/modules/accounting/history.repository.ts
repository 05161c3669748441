import type { ByDialect, Executor } from '../../db/database.js';
import { unnestInsert } from '../../db/unnest-insert.js';
import { preparedQuery } from '../../speed/prepared.js';
import type { AccountingRecordEventsTable } from './accounting.tables.js';

/** One event, compiled once: SQLite runs it per event in the change's write transaction (`each`). */
// A mapped copy of the row type: an interface is no Record<string, unknown>.
const insertOne = preparedQuery<{ [K in keyof AccountingRecordEventsTable]: AccountingRecordEventsTable[K] }>()(
  (ex, p) =>
    ex.insertInto('accounting_record_events').values({
      account_id: p('account_id'),
      record_id: p('record_id'),
      version: p('version'),
      event_id: p('event_id'),
      type: p('type'),
      actor_type: p('actor_type'),
      actor_id: p('actor_id'),
      occurred_at: p('occurred_at'),
      changes_json: p('changes_json'),
    }),
);

/**
 * SQLite: one compiled INSERT run per event (in process a statement is a call, not a round trip; building and
 * compiling a 500-row INSERT cost more than running it). PostgreSQL: one statement for the whole batch
 * (`unnestInsert`).
 */
const insertManyBy: ByDialect<(ex: Executor, events: readonly AccountingRecordEventsTable[]) => Promise<unknown>> = {
  sqlite: (ex, events) => insertOne.each(ex, events),
  postgres: (ex, events) =>
    unnestInsert(
      ex,
      'accounting_record_events',
      [
        ['account_id', 'text'],
        ['record_id', 'text'],
        ['version', 'integer'],
        ['event_id', 'text'],
        ['type', 'text'],
        ['actor_type', 'text'],
        ['actor_id', 'text'],
        ['occurred_at', 'bigint'],
        ['changes_json', 'text'],
      ],
      events,
    ),
};

export const historyRepository = {
  /** Writes the events, in the caller's (the change's) transaction. */
  async insertMany(ex: Executor, events: readonly AccountingRecordEventsTable[]): Promise<void> {
    if (events.length > 0) await insertManyBy[ex.dialect](ex, events);
  },

  /** A record's events after `afterVersion`, in version order; fetches limit + 1. */
  async page(
    ex: Executor,
    accountId: string,
    recordId: string,
    afterVersion: number,
    limit: number,
  ): Promise<AccountingRecordEventsTable[]> {
    return ex
      .selectFrom('accounting_record_events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('record_id', '=', recordId)
      .where('version', '>', afterVersion)
      .orderBy('version')
      .limit(limit + 1)
      .execute();
  },
};
