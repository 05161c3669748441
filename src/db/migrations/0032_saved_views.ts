import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * saved_views: a console user's named views of the review queue (docs/console.md, "Saved views"): the queue's
 * search filters and sort under a name, the user's own; `shared` (1) shows it to every user of the account (an
 * account admin's choice), while only its owner changes it.
 * - name_key: the name as compared (trimmed, lower case): one user's views never share it (the unique index).
 * - filters_json: the search query's members, as the route's schema checked them.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  await db.schema
    .createTable('saved_views')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('id', key, (c) => c.notNull())
    .addColumn('user_id', key, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', key, (c) => c.notNull())
    .addColumn('filters_json', 'text', (c) => c.notNull())
    .addColumn('shared', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('saved_views_pk', ['account_id', 'id'])
    .addForeignKeyConstraint('saved_views_user_fk', ['account_id', 'user_id'], 'users', ['account_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('saved_views_user_name')
    .on('saved_views')
    .columns(['account_id', 'user_id', 'name_key'])
    .unique()
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates console users' saved views of the review queue; nothing existing is touched.",
};
