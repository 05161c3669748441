import type { Kysely } from 'kysely';
import { allOrNothing, dialectOf, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * Receipts uploaded to svc (docs/receipts.md): content-addressed, one row per account and SHA-256 (the same bytes
 * uploaded twice are one receipt).
 * - receipts: what svc knows of each (its id, type, size); the bytes live in receipt_contents on PostgreSQL (every
 *   node serves every receipt) and in files under the data folder on SQLite.
 * - receipt_contents: the bytes, on PostgreSQL (bytea); empty on SQLite.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);
  const bytes = dialectOf(db) === 'postgres' ? 'bytea' : 'blob';
  await db.schema
    .createTable('receipts')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('id', key, (c) => c.notNull())
    .addColumn('sha256', key, (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('receipts_pk', ['account_id', 'id'])
    .addUniqueConstraint('receipts_sha256_uq', ['account_id', 'sha256'])
    .execute();
  await db.schema
    .createTable('receipt_contents')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('sha256', key, (c) => c.notNull())
    .addColumn('content', bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('receipt_contents_pk', ['account_id', 'sha256'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the receipts' tables; nothing existing is touched.",
};
