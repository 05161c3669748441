import { sql, type Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * ERP partner connections (docs/integration.md, "Integrations and vendors"):
 * - vendors: the ERP vendor ids the operator creates (`svc vendors create`), a catalogue of the whole service
 *   (like service_secrets, it has no account: every account's integrations name the same vendors).
 * - integrations: an account's connection to an account at an ERP vendor, ACTIVE or DISABLED. A partial unique
 *   index holds the reference's rule of at most one ACTIVE integration per account, so that no race of creates or
 *   reactivations can break it, on either dialect.
 *
 * All or nothing on both dialects (SQLite: its own transaction, as Kysely runs SQLite migrations without one).
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  const key = keyText(db);

  await db.schema
    .createTable('vendors')
    .addColumn('vendor_id', key, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .execute();

  await db.schema
    .createTable('integrations')
    .addColumn('account_id', key, (c) => c.notNull())
    .addColumn('integration_id', key, (c) => c.notNull())
    .addColumn('vendor', key, (c) => c.notNull())
    .addColumn('vendor_account_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('disconnected_at', 'bigint')
    .addPrimaryKeyConstraint('integrations_pk', ['account_id', 'integration_id'])
    .addForeignKeyConstraint('integrations_account_fk', ['account_id'], 'accounts', ['account_id'])
    .addForeignKeyConstraint('integrations_vendor_fk', ['vendor'], 'vendors', ['vendor_id'])
    .addCheckConstraint('integrations_status_check', sql`status in ('ACTIVE', 'DISABLED')`)
    .execute();
  await sql`create unique index integrations_one_active_idx on integrations (account_id) where status = 'ACTIVE'`.execute(
    db,
  );
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the vendors' and integration's tables; nothing existing is touched.",
};
