import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * account_receipt_policies: an account's receipt policy (docs/receipts.md, "Receipt policy"): per currency, the
 * amount above which a record of the named types needs a receipt before READY_FOR_EXPORT. One row per account that
 * has set a policy; no row: nothing is required.
 * - rules_json: the rules as answered, [{currency, above_minor, record_types}], one per currency, by currency.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_receipt_policies')
    .addColumn('account_id', keyText(db), (c) => c.primaryKey())
    .addColumn('rules_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('account_receipt_policies_account_fk', ['account_id'], 'accounts', ['account_id'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the receipt policies' table; nothing existing is touched.",
};
