import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * Console sign-in under hostile input (docs/console.md, "Sessions, and what protects them"):
 * - sign_in_throttles: failed attempts counted per (email, client address), per client address and per user at
 *   the second step, with the time until which each key is refused (growing delays). Kept in the database so that
 *   every process and node shares them. Keyed by the SHA-256 of the key (an email someone typed, perhaps a
 *   password pasted into the email box, is never stored); no account_id: an unknown email has none. It replaces
 *   the per-user lockout (users.failed_sign_ins and users.locked_until stay, unused, for a rolling deploy).
 * - user_totp: a user's TOTP secret (RFC 6238), unconfirmed until a first code is checked, and the last time step
 *   used, so that a code is accepted once.
 * - user_recovery_codes: single-use codes for a lost authenticator, stored by their SHA-256 (80 random bits each).
 * - account_user_settings: what an account admin sets for the account's console users (two-step sign-in required).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('sign_in_throttles')
    .addColumn('throttle_key', key, (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // The maintenance sweep deletes counters nobody has touched for a day.
  await db.schema.createIndex('sign_in_throttles_updated_idx').on('sign_in_throttles').column('updated_at').execute();

  await db.schema
    .createTable('user_totp')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('user_id', key, (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'bigint')
    .addColumn('last_used_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_totp_pk', ['account_id', 'user_id'])
    .addForeignKeyConstraint('user_totp_user_fk', ['account_id', 'user_id'], 'users', ['account_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('user_recovery_codes')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('user_id', key, (c) => c.notNull())
    .addColumn('code_hash', key, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('user_recovery_codes_pk', ['account_id', 'user_id', 'code_hash'])
    .addForeignKeyConstraint('user_recovery_codes_user_fk', ['account_id', 'user_id'], 'users', [
      'account_id',
      'user_id',
    ])
    .execute();

  await db.schema
    .createTable('account_user_settings')
    .addColumn('account_id', key, (c) => c.primaryKey())
    .addColumn('mfa_required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', key)
    .addForeignKeyConstraint('account_user_settings_account_fk', ['account_id'], 'accounts', ['account_id'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates sign-in throttles, two-step sign-in and the account's user settings; nothing existing is touched.",
};
