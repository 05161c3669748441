import type { Kysely } from 'kysely';
import { keyText, type MigrationPlan } from './helpers.js';

/**
 * Field values. The primary key (account_id, field_id, svc_id) serves the get and the keyset list in
 * creation order; remote_id and value_id address values in update and delete, so they are unique per field
 * where not null (both dialects treat NULLs as distinct in a unique index); (value, svc_id) serves the
 * exact `value` filter in list order.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('field_values')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('field_id', key, (c) => c.notNull())
    .addColumn('svc_id', key, (c) => c.notNull())
    .addColumn('value', key, (c) => c.notNull())
    .addColumn('remote_id', key)
    .addColumn('value_id', key)
    .addColumn('is_disabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('field_values_pk', ['account_id', 'field_id', 'svc_id'])
    .addForeignKeyConstraint(
      'field_values_field_fk',
      ['account_id', 'field_id'],
      'fields',
      ['account_id', 'svc_id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();

  await db.schema
    .createIndex('field_values_remote_id_uq')
    .on('field_values')
    .columns(['account_id', 'field_id', 'remote_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('field_values_value_id_uq')
    .on('field_values')
    .columns(['account_id', 'field_id', 'value_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('field_values_value_idx')
    .on('field_values')
    .columns(['account_id', 'field_id', 'value', 'svc_id'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('svc migrations are forward-only');
}

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the field values' table and its indexes; nothing existing is touched.",
};
