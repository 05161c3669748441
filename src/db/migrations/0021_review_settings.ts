import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, keyText, type MigrationPlan } from './helpers.js';

/**
 * account_review_settings: how an account's review workflow behaves beyond required coding (docs/coding-rules.md,
 * "Auto-submit"). One row per account that has changed a setting; no row: every setting at its default (off).
 * - auto_submit: 1 moves records ingested in PREPARE whose economic lines all carry the required coding on to
 *   REVIEW in the ingestion itself.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_review_settings')
    .addColumn('account_id', keyText(db), (c) => c.primaryKey())
    .addColumn('auto_submit', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addForeignKeyConstraint('account_review_settings_account_fk', ['account_id'], 'accounts', ['account_id'])
    .execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Creates the account's review settings; nothing existing is touched.",
};
