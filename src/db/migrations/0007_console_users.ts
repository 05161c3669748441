import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * The review console's people (docs/console.md):
 * - users: one account each, a role, an argon2id password hash (null until the first password is set), the
 *   count of failed sign-ins since the last success and the time a lockout ends.
 * - user_sessions: a signed-in browser, stored by the SHA-256 of its id (the cookie holds the id, the database
 *   never does); the session's data (its CSRF secret) as JSON; signed-in, last-seen and absolute expiry times.
 * - user_password_links: one-time links that set a password (first sign-in, reset), stored by their hash.
 * - service_secrets: secrets the service makes for itself on first start (the cookie-signing key), shared by
 *   every process serving the database.
 * - an index over record events by type and time, for the overview's exports-per-day chart.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('users')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('user_id', key, (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('failed_sign_ins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addPrimaryKeyConstraint('users_pk', ['account_id', 'user_id'])
    .addForeignKeyConstraint('users_account_fk', ['account_id'], 'accounts', ['account_id'])
    .execute();
  // One person, one sign-in: an email names one user across the service (compared lower-cased).
  await db.schema.createIndex('users_email_idx').on('users').column('email').unique().execute();
  await db.schema.createIndex('users_user_id_idx').on('users').column('user_id').unique().execute();

  await db.schema
    .createTable('user_sessions')
    .addColumn('session_hash', key, (c) => c.primaryKey())
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('user_id', key, (c) => c.notNull())
    .addColumn('data_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('user_sessions_user_fk', ['account_id', 'user_id'], 'users', ['account_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('user_sessions_user_idx')
    .on('user_sessions')
    .columns(['account_id', 'user_id'])
    .execute();
  // The maintenance sweep deletes by either time (expires_at or last_seen_at): an index for each.
  await db.schema.createIndex('user_sessions_expires_idx').on('user_sessions').column('expires_at').execute();
  await db.schema.createIndex('user_sessions_seen_idx').on('user_sessions').column('last_seen_at').execute();

  await db.schema
    .createTable('user_password_links')
    .addColumn('link_hash', key, (c) => c.primaryKey())
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('user_id', key, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('user_password_links_user_fk', ['account_id', 'user_id'], 'users', [
      'account_id',
      'user_id',
    ])
    .execute();
  await db.schema
    .createIndex('user_password_links_user_idx')
    .on('user_password_links')
    .columns(['account_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('service_secrets')
    .addColumn('name', key, (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createIndex('accounting_record_events_type_idx')
    .on('accounting_record_events')
    .columns(['account_id', 'type', 'occurred_at'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_record_events'],
  note: 'Creates console users, sessions and password links, and indexes the review history by event type: the index build holds back writes of records while it runs.',
};
