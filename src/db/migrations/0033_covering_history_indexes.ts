import { sql, type Kysely } from 'kysely';
import { allOrNothing, forwardOnly, type MigrationPlan } from './helpers.js';

/**
 * The vendor and user history indexes of 0022 rebuilt as covering indexes (docs/suggestions.md, "Speed"): a grid
 * page reads the last 50 approved records of each of its vendors and users (about 10,000 rows), and each row found
 * through 0022's indexes was a read of the records' table for its review status and the columns a history row
 * shows. With those columns in the index the reads are index-only (SQLite: COVERING INDEX; PostgreSQL: Index Only
 * Scan). Same names, same leading columns (so the same walk from the key, newest posted first), then:
 * - review_status (the filter on approved records), type, version, currency, amount_minor: what a history row takes
 *   (no memo: a memo is up to 1000 characters, too wide for an index entry; only the record type's history, read
 *   through accounting_records_type_hist_idx, takes it);
 * - vendor_name / user_email last: PostgreSQL answers a query from an index alone only when every column it names
 *   is there, and `lower(vendor_name)` names vendor_name.
 * Keys of at most 255 characters each, so an entry stays within PostgreSQL's bound for a B-tree entry.
 *
 * All or nothing on both dialects.
 */
export const up = allOrNothing(migrate);

async function migrate(db: Kysely<any>): Promise<void> {
  await sql`drop index accounting_records_vendor_hist_idx`.execute(db);
  await sql`create index accounting_records_vendor_hist_idx on accounting_records
    (account_id, lower(vendor_name), posted_at, id, review_status, type, version, currency, amount_minor, vendor_name)`.execute(
    db,
  );
  await sql`drop index accounting_records_user_hist_idx`.execute(db);
  await sql`create index accounting_records_user_hist_idx on accounting_records
    (account_id, lower(user_email), posted_at, id, review_status, type, version, currency, amount_minor, user_email)`.execute(
    db,
  );
}

export const down = forwardOnly;

export const plan: MigrationPlan = {
  online: { sqlite: false, postgres: false },
  scans: ['accounting_records'],
  note: "Rebuilds the two indexes of the suggestions' vendor and user history reads with the columns those reads take: record writes wait for as long as the records take to index.",
};
