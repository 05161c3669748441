import { sql, type Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * ERP partner apps and OAuth 2.0 authorization code (docs/integration.md, "Connecting a partner app"):
 * - oauth_apps: the partner apps the operator registers (`svc apps create`), a catalogue of the whole service like
 *   vendors: an app is connected to many accounts.
 * - oauth_clients gains `app_id` (and `granted_by`, the user who consented): an account's connection to an app is a client of that account (so that its
 *   tokens are found, scoped and revoked exactly as other clients' are), made at consent, with no usable secret.
 * - oauth_codes: authorization codes (sha256 only), single-use, bound to the connection, redirect URI and PKCE
 *   challenge; `family_id` is the refresh family their exchange started (revoked if the code is replayed).
 * - refresh_tokens: rotated on use; a used one is kept until it expires, so that its replay is recognised and
 *   revokes its family.
 * - access_tokens gains `family_id`: the tokens a refresh family issued, revoked with it.
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('oauth_apps')
    .addColumn('app_id', key, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('client_type', 'text', (c) => c.notNull().check(sql`client_type in ('confidential', 'public')`))
    .addColumn('secret_hash', 'text')
    .addColumn('redirect_uris_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .execute();

  await db.schema.alterTable('oauth_clients').addColumn('app_id', key).execute();
  await db.schema.alterTable('oauth_clients').addColumn('granted_by', key).execute();
  await db.schema.createIndex('oauth_clients_app_idx').on('oauth_clients').columns(['app_id', 'account_id']).execute();
  // At most one active connection per account and app, whatever consents race.
  await sql`create unique index oauth_clients_one_connection_idx on oauth_clients (account_id, app_id) where app_id is not null and revoked_at is null`.execute(
    db,
  );

  await db.schema
    .createTable('oauth_codes')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('code_hash', key, (c) => c.notNull())
    .addColumn('client_id', key, (c) => c.notNull())
    .addColumn('app_id', key, (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('family_id', key)
    .addPrimaryKeyConstraint('oauth_codes_pk', ['account_id', 'code_hash'])
    .addForeignKeyConstraint('oauth_codes_client_fk', ['account_id', 'client_id'], 'oauth_clients', [
      'account_id',
      'client_id',
    ])
    .execute();
  await db.schema.createIndex('oauth_codes_code_hash_idx').on('oauth_codes').column('code_hash').execute();
  await db.schema.createIndex('oauth_codes_expires_at_idx').on('oauth_codes').column('expires_at').execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('token_hash', key, (c) => c.notNull())
    .addColumn('family_id', key, (c) => c.notNull())
    .addColumn('client_id', key, (c) => c.notNull())
    .addColumn('app_id', key, (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('refresh_tokens_pk', ['account_id', 'token_hash'])
    .addForeignKeyConstraint('refresh_tokens_client_fk', ['account_id', 'client_id'], 'oauth_clients', [
      'account_id',
      'client_id',
    ])
    .execute();
  await db.schema.createIndex('refresh_tokens_token_hash_idx').on('refresh_tokens').column('token_hash').execute();
  await db.schema
    .createIndex('refresh_tokens_family_idx')
    .on('refresh_tokens')
    .columns(['account_id', 'family_id'])
    .execute();
  await db.schema.createIndex('refresh_tokens_expires_at_idx').on('refresh_tokens').column('expires_at').execute();

  await db.schema.alterTable('access_tokens').addColumn('family_id', key).execute();
  await db.schema
    .createIndex('access_tokens_family_idx')
    .on('access_tokens')
    .columns(['account_id', 'family_id'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: ['oauth_clients', 'access_tokens'],
  note: 'Creates partner apps, authorization codes and refresh tokens; adds nullable columns to API clients and tokens and indexes them (small tables: expired tokens are deleted, and a token lives a day at most).',
};
