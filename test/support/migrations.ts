import { sql, type Kysely } from 'kysely';

/**
 * The migration tests' way back: each undo puts a migrated database back as it was before a migration (its tables,
 * columns, indexes and the forms of its stored JSON), so that a test can run the migration again over rows the
 * current code wrote.
 */

/** The detail columns 0005 moved from accounting_records to accounting_record_details. */
export const DETAILS = ['line_items_json', 'user_json', 'vendor_json', 'receipts_json'] as const;
export const RECORD_FIELDS = '0008_record_fields';
export const INTEGRATIONS = '0009_integrations';
export const WEBHOOKS = '0010_webhooks';
export const OAUTH_APPS = '0011_oauth_apps';
export const SECRET_ROTATION = '0012_client_secret_rotation';
export const SIGN_IN_SECURITY = '0013_sign_in_security';
export const AUDIT_LOG = '0015_audit_log';
export const CANONICAL_JSON = '0016_canonical_record_json';
export const DELIVERY_QUEUES = '0014_webhook_delivery_queues';
export const PASSKEYS = '0017_passkeys';
export const AUTOVACUUM = '0018_autovacuum_settings';
export const CODING_RULES = '0019_coding_rules';
export const DISPATCHERS = '0020_webhook_dispatchers';
export const REVIEW_SETTINGS = '0021_review_settings';
export const SUGGESTION_INDEXES = '0022_suggestion_indexes';
export const RECORD_DRAFTS = '0023_record_drafts';
export const MERCHANT_CATEGORY_CODE = '0024_merchant_category_code';
export const RECEIPTS = '0025_receipts';
export const RECORD_TERMS = '0027_record_search_terms';
export const RECEIPT_POLICY = '0028_receipt_policy';
export const CLIENT_NAMES = '0029_api_client_names';
export const RECEIPT_LINKS = '0030_record_receipt_links';
export const EXPORT_MAPPINGS = '0031_export_mappings';
export const SAVED_VIEWS = '0032_saved_views';
export const COVERING_HISTORY = '0033_covering_history_indexes';
/** The migrations after 0003, in the order they run. */
export const LATER = [
  '0004_line_items_as_answered',
  '0005_record_details',
  '0006_review_workflow',
  '0007_console_users',
  RECORD_FIELDS,
  INTEGRATIONS,
  WEBHOOKS,
  OAUTH_APPS,
  SECRET_ROTATION,
  SIGN_IN_SECURITY,
  DELIVERY_QUEUES,
  AUDIT_LOG,
  CANONICAL_JSON,
  PASSKEYS,
  AUTOVACUUM,
  CODING_RULES,
  DISPATCHERS,
  REVIEW_SETTINGS,
  SUGGESTION_INDEXES,
  RECORD_DRAFTS,
  MERCHANT_CATEGORY_CODE,
  RECEIPTS,
  RECORD_TERMS,
  RECEIPT_POLICY,
  CLIENT_NAMES,
  RECEIPT_LINKS,
  EXPORT_MAPPINGS,
  SAVED_VIEWS,
  COVERING_HISTORY,
];
/** `name` and the migrations after it, in the order they run: what migrateToLatest applies once `name` is undone. */
export const laterFrom = (name: string): string[] => {
  const at = LATER.indexOf(name);
  if (at < 0) throw new Error(`${name} is not a later migration`);
  return LATER.slice(at);
};
export const REVIEW_COLUMNS = ['amount_sort', 'uncoded_lines', 'vendor_name', 'user_email'];
const RECORD_FIELD_COLUMNS = ['status', 'billing_currency', 'billing_amount_minor'];

/** Stored line items as written before 0008: no billing_amount, no amortization, codings without a type. */
export function linesBefore0008(json: string): string {
  return JSON.stringify(
    (JSON.parse(json) as any[]).map(({ billing_amount: _billing, amortization: _amortization, ...line }) => ({
      ...line,
      accounting_field_values: line.accounting_field_values.map(({ type: _type, ...coding }: any) => coding),
    })),
  );
}
/** A stored user as written before 0008: without the account_id. */
export function userBefore0008(json: string | null): string | null {
  if (json === null) return null;
  const { account_id: _account, ...user } = JSON.parse(json);
  return JSON.stringify(user);
}

/** Undoes migration 0008 (the reference record's fields): its columns, and the members it added to stored JSON. */
export async function undoRecordFields(db: Kysely<any>) {
  const rows = await db
    .selectFrom('accounting_record_details')
    .select(['account_id', 'id', 'line_items_json', 'user_json'])
    .execute();
  for (const row of rows) {
    await db
      .updateTable('accounting_record_details')
      .set({ line_items_json: linesBefore0008(row.line_items_json), user_json: userBefore0008(row.user_json) })
      .where('account_id', '=', row.account_id)
      .where('id', '=', row.id)
      .execute();
  }
  for (const column of RECORD_FIELD_COLUMNS) {
    await db.schema.alterTable('accounting_record_details').dropColumn(column).execute();
  }
  await sql`delete from kysely_migration where name = ${RECORD_FIELDS}`.execute(db);
}

/** Undoes migration 0009 (vendors and integrations). */
export async function undoIntegrations(db: Kysely<any>) {
  for (const table of ['integrations', 'vendors']) await sql`drop table ${sql.ref(table)}`.execute(db);
  await sql`delete from kysely_migration where name = ${INTEGRATIONS}`.execute(db);
}

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

/** Undoes migrations 0021 to 0018 (PostgreSQL's autovacuum thresholds: storage parameters only, set again when it runs). */
async function undoAutovacuum(db: Kysely<any>) {
  await undoCodingRules(db);
  await sql`delete from kysely_migration where name = ${AUTOVACUUM}`.execute(db);
}

/** Undoes migrations 0018 and 0017 (passkeys, and the session's challenge of a passkey ceremony). */
export async function undoPasskeys(db: Kysely<any>) {
  await undoAutovacuum(db);
  await sql`drop table user_passkeys`.execute(db);
  for (const column of ['passkey_challenge', 'passkey_ceremony', 'passkey_challenge_expires_at'])
    await db.schema.alterTable('user_sessions').dropColumn(column).execute();
  await sql`delete from kysely_migration where name = ${PASSKEYS}`.execute(db);
}

/** Undoes migrations 0018, 0017, 0016 (stored JSON in the serializer's member order: data only, so only forgotten) and 0015 (the audit log). */
export async function undoAuditLog(db: Kysely<any>) {
  await undoPasskeys(db);
  await sql`delete from kysely_migration where name = ${CANONICAL_JSON}`.execute(db);
  await sql`drop table audit_events`.execute(db);
  await sql`delete from kysely_migration where name = ${AUDIT_LOG}`.execute(db);
}

/** Undoes migrations 0018 to 0013 (sign-in throttles, two-step sign-in, the account's user settings). */
export async function undoSignInSecurity(db: Kysely<any>) {
  await undoAuditLog(db);
  for (const table of ['account_user_settings', 'user_recovery_codes', 'user_totp', 'sign_in_throttles'])
    await sql`drop table ${sql.ref(table)}`.execute(db);
  await sql`delete from kysely_migration where name = ${SIGN_IN_SECURITY}`.execute(db);
}

/** Undoes migrations 0013 and 0012 (the previous secret of a rotation). */
export async function undoSecretRotation(db: Kysely<any>) {
  await undoSignInSecurity(db);
  for (const column of ['previous_secret_hash', 'previous_secret_expires_at'])
    await db.schema.alterTable('oauth_clients').dropColumn(column).execute();
  await sql`delete from kysely_migration where name = ${SECRET_ROTATION}`.execute(db);
}

/** Undoes migration 0011 (partner apps, authorization codes, refresh tokens). */
export async function undoOauthApps(db: Kysely<any>) {
  await undoSecretRotation(db);
  for (const table of ['refresh_tokens', 'oauth_codes', 'oauth_apps'])
    await sql`drop table ${sql.ref(table)}`.execute(db);
  await sql`drop index access_tokens_family_idx`.execute(db);
  await db.schema.alterTable('access_tokens').dropColumn('family_id').execute();
  for (const index of ['oauth_clients_app_idx', 'oauth_clients_one_connection_idx'])
    await sql`drop index ${sql.ref(index)}`.execute(db);
  for (const column of ['app_id', 'granted_by'])
    await db.schema.alterTable('oauth_clients').dropColumn(column).execute();
  await sql`delete from kysely_migration where name = ${OAUTH_APPS}`.execute(db);
}

/** Undoes migration 0010 (account events and webhooks), and 0014 (its index goes with the deliveries' table). */
export async function undoWebhooks(db: Kysely<any>) {
  await sql`delete from kysely_migration where name = ${DELIVERY_QUEUES}`.execute(db);
  await undoOauthApps(db);
  for (const table of [
    'webhook_attempts',
    'webhook_deliveries',
    'webhook_endpoints',
    'account_events',
    'account_event_counters',
  ]) {
    await sql`drop table ${sql.ref(table)}`.execute(db);
  }
  await sql`delete from kysely_migration where name = ${WEBHOOKS}`.execute(db);
}

/**
 * Undoes migrations 0013, 0012, 0011, 0010, 0009, 0008 and 0007 (console users and sessions; its index on record events goes with 0006's
 * table).
 */
export async function backTo0006(db: Kysely<any>) {
  await undoWebhooks(db);
  await undoIntegrations(db);
  await undoRecordFields(db);
  for (const table of ['user_password_links', 'user_sessions', 'users', 'service_secrets']) {
    await sql`drop table ${sql.ref(table)}`.execute(db);
  }
  await sql`delete from kysely_migration where name = '0007_console_users'`.execute(db);
}

/** Undoes migrations 0007 and 0006 (the review workflow), so that a test can run them again over older rows. */
export async function backTo0005(db: Kysely<any>, dialect: string) {
  await backTo0006(db);
  if (dialect === 'sqlite') {
    for (const trigger of ['insert', 'update', 'delete']) {
      await sql`drop trigger ${sql.ref(`field_values_search_${trigger}`)}`.execute(db);
    }
    await sql`drop table field_values_search`.execute(db);
  } else {
    await sql`drop index field_values_search_idx`.execute(db);
  }
  await sql`drop index field_values_lower_value_idx`.execute(db);
  await sql`drop table accounting_record_events`.execute(db);
  await sql`drop table account_required_fields`.execute(db);
  await sql`drop index accounting_records_posted_idx`.execute(db);
  await sql`drop index accounting_records_amount_idx`.execute(db);
  for (const column of REVIEW_COLUMNS) await db.schema.alterTable('accounting_records').dropColumn(column).execute();
  await sql`delete from kysely_migration where name = '0006_review_workflow'`.execute(db);
}
