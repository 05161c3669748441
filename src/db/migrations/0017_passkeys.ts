import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * Passkeys and security keys (WebAuthn) as a second factor of console sign-in (docs/console.md, "Two-step
 * sign-in"):
 * - user_passkeys: a user's registered credentials: the credential id the browser names, its public key (COSE, as
 *   base64url: a public key, never a secret), the signature counter the authenticator last reported, its
 *   transports (JSON array) and the name the user gave it. A credential id is unique across the service.
 * - user_sessions gets the WebAuthn challenge of the session's ceremony in progress (registration or sign-in), with
 *   its kind and expiry: one per session, taken (cleared) by the first answer to it, right or wrong, and gone with
 *   the session's row.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('user_passkeys')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('user_id', key, (c) => c.notNull())
    .addColumn('passkey_id', key, (c) => c.notNull())
    .addColumn('credential_id', key, (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addPrimaryKeyConstraint('user_passkeys_pk', ['account_id', 'user_id', 'passkey_id'])
    .addForeignKeyConstraint('user_passkeys_user_fk', ['account_id', 'user_id'], 'users', ['account_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('user_passkeys_credential_idx')
    .on('user_passkeys')
    .column('credential_id')
    .unique()
    .execute();

  // One column a statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema.alterTable('user_sessions').addColumn('passkey_challenge', 'text').execute();
  await db.schema.alterTable('user_sessions').addColumn('passkey_ceremony', 'text').execute();
  await db.schema.alterTable('user_sessions').addColumn('passkey_challenge_expires_at', 'bigint').execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: 'Creates passkeys and adds three nullable columns to console sessions.',
};
