import { sql, type Kysely } from 'kysely';

/**
 * The migration tests' way back: each undo puts a migrated database back as it was before a migration (its tables,
 * columns, indexes and the forms of its stored JSON), so that a test can run the migration again over rows the
 * current code wrote.
 */

import {
  AUDIT_LOG,
  AUTOVACUUM,
  CANONICAL_JSON,
  DELIVERY_QUEUES,
  INTEGRATIONS,
  OAUTH_APPS,
  PASSKEYS,
  RECORD_FIELDS,
  RECORD_FIELD_COLUMNS,
  REVIEW_COLUMNS,
  SECRET_ROTATION,
  SIGN_IN_SECURITY,
  WEBHOOKS,
} from './migration-names.js';
import { undoCodingRules } from './migrations-later.js';

// The names and the later undos, for the tests that import them from here.
export * from './migration-names.js';
export * from './migrations-later.js';

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
