import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * record_drafts: a console user's unsaved coding of a record (docs/console.md, "Work is never lost"), kept on the
 * server so that it outlives the tab and the session. One row per account, user and record; deleted when the
 * coding is saved or discarded.
 * - version: the record's version the edits started from (older than the record's: it changed since).
 * - lines_json: the edited cells, as the console sent them (bounded by the route's body limit).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  await db.schema
    .createTable('record_drafts')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('user_id', key, (c) => c.notNull())
    .addColumn('record_id', key, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('lines_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('record_drafts_pk', ['account_id', 'user_id', 'record_id'])
    .addForeignKeyConstraint('record_drafts_user_fk', ['account_id', 'user_id'], 'users', ['account_id', 'user_id'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates console users' drafts of a record's coding; nothing existing is touched.",
};
