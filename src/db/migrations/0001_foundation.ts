import type { Kysely } from 'kysely';
import { keyText, type MigrationPlan } from './helpers.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('accounts')
    .addColumn('account_id', key, (c) => c.primaryKey())
    .addColumn('cursor_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_clients')
    .addColumn('account_id', key, (c) => c.notNull().references('accounts.account_id'))
    .addColumn('client_id', key, (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addPrimaryKeyConstraint('oauth_clients_pk', ['account_id', 'client_id'])
    .execute();
  // The token endpoint knows only the client_id; 80 random bits make it unique without a unique key.
  await db.schema.createIndex('oauth_clients_client_id_idx').on('oauth_clients').column('client_id').execute();

  await db.schema
    .createTable('access_tokens')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('token_hash', key, (c) => c.notNull())
    .addColumn('client_id', key, (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('access_tokens_pk', ['account_id', 'token_hash'])
    .addForeignKeyConstraint('access_tokens_client_fk', ['account_id', 'client_id'], 'oauth_clients', [
      'account_id',
      'client_id',
    ])
    .execute();
  await db.schema.createIndex('access_tokens_token_hash_idx').on('access_tokens').column('token_hash').execute();
  await db.schema.createIndex('access_tokens_expires_at_idx').on('access_tokens').column('expires_at').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('client_id', key, (c) => c.notNull())
    .addColumn('idempotency_key', key, (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addColumn('lock_token', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'client_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_at_idx').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('fields')
    .addColumn('account_id', key, (c) => c.notNull().references('accounts.account_id'))
    .addColumn('svc_id', key, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('field_group', 'text', (c) => c.notNull())
    .addColumn('remote_id', 'text')
    .addColumn('integration_id', 'text')
    .addColumn('is_disabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('fields_pk', ['account_id', 'svc_id'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('svc migrations are forward-only');
}

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the foundation's tables (API clients, tokens, idempotency keys, fields) in an empty database.",
};
