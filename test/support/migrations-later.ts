import { sql, type Kysely } from 'kysely';
import {
  CLIENT_NAMES,
  CODING_RULES,
  COVERING_HISTORY,
  DISPATCHERS,
  EXPORT_MAPPINGS,
  MERCHANT_CATEGORY_CODE,
  RECEIPT_LINKS,
  RECEIPT_POLICY,
  RECEIPTS,
  RECORD_DRAFTS,
  RECORD_TERMS,
  REVIEW_SETTINGS,
  SAVED_VIEWS,
  SUGGESTION_INDEXES,
} from './migration-names.js';

/** The undo of migrations 0019 to 0033 (each undoes the later ones first): the way back of migrations.ts. */

/** Undoes migration 0033 (the vendor and user history indexes as covering indexes): 0022's indexes again. */
export async function undoCoveringHistory(db: Kysely<any>) {
  for (const [index, column] of [
    ['accounting_records_vendor_hist_idx', 'vendor_name'],
    ['accounting_records_user_hist_idx', 'user_email'],
  ] as const) {
    await sql`drop index ${sql.ref(index)}`.execute(db);
    await sql`create index ${sql.ref(index)}
      on accounting_records (account_id, lower(${sql.ref(column)}), posted_at, id)`.execute(db);
  }
  await sql`delete from kysely_migration where name = ${COVERING_HISTORY}`.execute(db);
}

/** Undoes migrations 0033 and 0032 (console users' saved views of the review queue). */
export async function undoSavedViews(db: Kysely<any>) {
  await undoCoveringHistory(db);
  await sql`drop table saved_views`.execute(db);
  await sql`delete from kysely_migration where name = ${SAVED_VIEWS}`.execute(db);
}

/** Undoes migrations 0033 to 0031 (an account's export mapping). */
export async function undoExportMappings(db: Kysely<any>) {
  await undoSavedViews(db);
  await sql`drop table account_export_mappings`.execute(db);
  await sql`delete from kysely_migration where name = ${EXPORT_MAPPINGS}`.execute(db);
}

/** Undoes migrations 0033 to 0030 (which receipts each record lists). */
export async function undoReceiptLinks(db: Kysely<any>) {
  await undoExportMappings(db);
  await sql`drop table accounting_record_receipts`.execute(db);
  await sql`delete from kysely_migration where name = ${RECEIPT_LINKS}`.execute(db);
}

/** Undoes migrations 0033 to 0029 (an API client's name and last use). */
export async function undoClientNames(db: Kysely<any>) {
  await undoReceiptLinks(db);
  for (const column of ['name', 'last_used_at']) {
    await db.schema.alterTable('oauth_clients').dropColumn(column).execute();
  }
  await sql`delete from kysely_migration where name = ${CLIENT_NAMES}`.execute(db);
}

/** Undoes migrations 0033 to 0028 (an account's receipt policy). */
export async function undoReceiptPolicy(db: Kysely<any>) {
  await undoClientNames(db);
  await sql`drop table account_receipt_policies`.execute(db);
  await sql`delete from kysely_migration where name = ${RECEIPT_POLICY}`.execute(db);
}

/** Undoes migrations 0033 to 0027 (the words records are found by in the queue's free-text search). */
export async function undoRecordTerms(db: Kysely<any>) {
  await undoReceiptPolicy(db);
  await sql`drop table accounting_record_terms`.execute(db);
  await sql`delete from kysely_migration where name = ${RECORD_TERMS}`.execute(db);
}

/** Undoes migrations 0033 to 0025 (receipts uploaded to svc). */
async function undoReceipts(db: Kysely<any>) {
  await undoRecordTerms(db);
  for (const table of ['receipt_contents', 'receipts']) await sql`drop table ${sql.ref(table)}`.execute(db);
  await sql`delete from kysely_migration where name = ${RECEIPTS}`.execute(db);
}

/** Undoes migrations 0028, 0027, 0025 and 0024 (a card record's merchant category code). */
async function undoMerchantCategoryCode(db: Kysely<any>) {
  await undoReceipts(db);
  await db.schema.alterTable('accounting_record_details').dropColumn('merchant_category_code').execute();
  await sql`delete from kysely_migration where name = ${MERCHANT_CATEGORY_CODE}`.execute(db);
}

/** Undoes migrations 0028, 0027, 0025, 0024 and 0023 (console users' drafts of a record's coding). */
async function undoRecordDrafts(db: Kysely<any>) {
  await undoMerchantCategoryCode(db);
  await sql`drop table record_drafts`.execute(db);
  await sql`delete from kysely_migration where name = ${RECORD_DRAFTS}`.execute(db);
}

/** Undoes migrations 0023 and 0022 (the indexes of the suggestions' history reads). */
async function undoSuggestionIndexes(db: Kysely<any>) {
  await undoRecordDrafts(db);
  for (const index of [
    'accounting_records_vendor_hist_idx',
    'accounting_records_user_hist_idx',
    'accounting_records_type_hist_idx',
  ])
    await sql`drop index ${sql.ref(index)}`.execute(db);
  await sql`delete from kysely_migration where name = ${SUGGESTION_INDEXES}`.execute(db);
}

/** Undoes migrations 0023 to 0021 (the account's review settings: auto-submit). */
async function undoReviewSettings(db: Kysely<any>) {
  await undoSuggestionIndexes(db);
  await sql`drop table account_review_settings`.execute(db);
  await sql`delete from kysely_migration where name = ${REVIEW_SETTINGS}`.execute(db);
}

/** Undoes migrations 0023 to 0020 (the dispatchers' heartbeats, and which one holds each claim). */
async function undoDispatchers(db: Kysely<any>) {
  await undoReviewSettings(db);
  await sql`drop index webhook_deliveries_claimed_by_idx`.execute(db);
  await db.schema.alterTable('webhook_deliveries').dropColumn('claimed_by').execute();
  await sql`drop table webhook_dispatchers`.execute(db);
  await sql`delete from kysely_migration where name = ${DISPATCHERS}`.execute(db);
}

/** Undoes migrations 0023 to 0019 (coding rules, their versions, and the line values rules set). */
export async function undoCodingRules(db: Kysely<any>) {
  await undoDispatchers(db);
  for (const table of ['coding_rule_line_values', 'coding_rule_versions', 'coding_rules'])
    await sql`drop table ${sql.ref(table)}`.execute(db);
  await sql`delete from kysely_migration where name = ${CODING_RULES}`.execute(db);
}
