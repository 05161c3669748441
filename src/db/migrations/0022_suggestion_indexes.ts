import { sql, type Kysely } from 'kysely';
import { allOrNothing, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * Coding suggestions (docs/suggestions.md) read a bounded history: the last 50 records of the same vendor, of the
 * same user, of the same record type, newest posted first. Each read walks one of these indexes backwards from
 * its key and stops after 50 approved records, however many records the account has:
 * - accounting_records_vendor_hist_idx: (account_id, lower(vendor_name), posted_at, id); vendor names compare
 *   without regard to case.
 * - accounting_records_user_hist_idx: (account_id, lower(user_email), posted_at, id).
 * - accounting_records_type_hist_idx: (account_id, type, posted_at, id).
 *
 * Numbered 0022: 0021 is another change's (an account setting). All or nothing on both dialects.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await sql`create index accounting_records_vendor_hist_idx
    on accounting_records (account_id, lower(vendor_name), posted_at, id)`.execute(db);
  await sql`create index accounting_records_user_hist_idx
    on accounting_records (account_id, lower(user_email), posted_at, id)`.execute(db);
  await sql`create index accounting_records_type_hist_idx
    on accounting_records (account_id, type, posted_at, id)`.execute(db);
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_records'],
  note: "Builds three indexes over accounting records (the suggestions' history reads): record writes wait for as long as the records take to index.",
};
