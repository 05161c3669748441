import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * account_export_mappings: an account's export mapping (docs/exports.md, "The stored mapping"): the GL account
 * field, the balancing account of each balancing_account_type, and the fields that fill the ERPs' dimension
 * columns. One row per account that has set one; no row: the defaults.
 * - mapping_json: the mapping as stored, {account_field_id, balancing_accounts, dimension_fields, tracking_fields}.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_export_mappings')
    .addColumn('account_id', keyText(db), (c) => c.primaryKey())
    .addColumn('mapping_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('account_export_mappings_account_fk', ['account_id'], 'accounts', ['account_id'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the export mappings' table; nothing existing is touched.",
};
