import type { Kysely } from 'kysely';
import { allOrNothing, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * accounting_record_details.merchant_category_code: the card network's merchant category code (ISO 18245, four
 * digits) of a card record, as the card system sent it at ingestion; null when not sent, and for every other
 * source. Coding rules match on it (docs/coding-rules.md); no answer of the public API shows it (the record's shape
 * there is the spec's, exactly). A nullable column with no default: adding it rewrites nothing on either dialect.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounting_record_details').addColumn('merchant_category_code', 'text').execute();
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: true, postgres: true },
  scans: [],
  note: "Adds a nullable column to record details (a card record's merchant category code).",
};
