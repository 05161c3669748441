import { setTimeout as delay } from 'node:timers/promises';
import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import type { Database, Db } from './database.js';
import { isSqliteBusy } from './failures.js';
import type { MigrationPlan } from './migrations/helpers.js';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_field_values.js';
import * as m0003 from './migrations/0003_accounting.js';
import * as m0004 from './migrations/0004_line_items_as_answered.js';
import * as m0005 from './migrations/0005_record_details.js';
import * as m0006 from './migrations/0006_review_workflow.js';
import * as m0007 from './migrations/0007_console_users.js';
import * as m0008 from './migrations/0008_record_fields.js';
import * as m0009 from './migrations/0009_integrations.js';
import * as m0010 from './migrations/0010_webhooks.js';
import * as m0011 from './migrations/0011_oauth_apps.js';
import * as m0012 from './migrations/0012_client_secret_rotation.js';
import * as m0013 from './migrations/0013_sign_in_security.js';
import * as m0014 from './migrations/0014_webhook_delivery_queues.js';
import * as m0015 from './migrations/0015_audit_log.js';
import * as m0016 from './migrations/0016_canonical_record_json.js';
import * as m0017 from './migrations/0017_passkeys.js';
import * as m0018 from './migrations/0018_autovacuum_settings.js';
import * as m0019 from './migrations/0019_coding_rules.js';
import * as m0020 from './migrations/0020_webhook_dispatchers.js';
import * as m0021 from './migrations/0021_review_settings.js';
import * as m0022 from './migrations/0022_suggestion_indexes.js';
import * as m0023 from './migrations/0023_record_drafts.js';
import * as m0024 from './migrations/0024_merchant_category_code.js';
import * as m0025 from './migrations/0025_receipts.js';
import * as m0027 from './migrations/0027_record_search_terms.js';
import * as m0028 from './migrations/0028_receipt_policy.js';
import * as m0029 from './migrations/0029_api_client_names.js';
import * as m0030 from './migrations/0030_record_receipt_links.js';
import * as m0031 from './migrations/0031_export_mappings.js';
import * as m0032 from './migrations/0032_saved_views.js';
import * as m0033 from './migrations/0033_covering_history_indexes.js';

/**
 * The numbered migrations, in order. Imported statically so that the same list serves the compiled
 * service, the CLI and the tests; one file serves both dialects. Each says whether it runs online (`plan`,
 * read by `svc migrate --plan`).
 */
export const MIGRATIONS: Record<string, Migration & { plan: MigrationPlan }> = {
  '0001_foundation': m0001,
  '0002_field_values': m0002,
  '0003_accounting': m0003,
  '0004_line_items_as_answered': m0004,
  '0005_record_details': m0005,
  '0006_review_workflow': m0006,
  '0007_console_users': m0007,
  '0008_record_fields': m0008,
  '0009_integrations': m0009,
  '0010_webhooks': m0010,
  '0011_oauth_apps': m0011,
  '0012_client_secret_rotation': m0012,
  '0013_sign_in_security': m0013,
  '0014_webhook_delivery_queues': m0014,
  '0015_audit_log': m0015,
  '0016_canonical_record_json': m0016,
  '0017_passkeys': m0017,
  '0018_autovacuum_settings': m0018,
  '0019_coding_rules': m0019,
  '0020_webhook_dispatchers': m0020,
  '0021_review_settings': m0021,
  '0022_suggestion_indexes': m0022,
  '0023_record_drafts': m0023,
  '0024_merchant_category_code': m0024,
  '0025_receipts': m0025,
  '0027_record_search_terms': m0027,
  '0028_receipt_policy': m0028,
  '0029_api_client_names': m0029,
  '0030_record_receipt_links': m0030,
  '0031_export_mappings': m0031,
  '0032_saved_views': m0032,
  '0033_covering_history_indexes': m0033,
};

const MIGRATION_LOCK_RETRY_MS = 50;

export async function migrateToLatest(db: Db): Promise<string[]> {
  // A database made between two merges that landed their migrations out of order (the repository's 1bf87fd had
  // 0027 and not 0025) runs the missing ones too, in name order: migrations merged side by side never depend on
  // each other (docs/operations.md, "Upgrades").
  const result = await runMigrations(db, (migrator) => migrator.migrateToLatest(), { allowUnorderedMigrations: true });
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Runs svc's migrations on `db` with `migrator`'s `step` (to the latest, or to one schema), all pending ones and
 * their records in one transaction on both dialects: a second `svc migrate` (or server) waits for the first and
 * then finds nothing to do, and a process killed mid-way leaves the database as it was.
 *
 * SQLite: the adapter says its DDL is transactional (db/sqlite.ts), so Kysely's Migrator opens the transaction
 * (BEGIN IMMEDIATE). Foreign keys are off around it (0005 rebuilds a table others refer to; the setting cannot
 * change inside a transaction), on the connection held for the whole run, and each migration is followed by
 * `pragma foreign_key_check` in the transaction: a migration that breaks a key fails and nothing is applied.
 * PostgreSQL: Kysely's own transaction and advisory lock.
 */
export async function runMigrations(
  db: Db,
  step: (migrator: Migrator) => Promise<MigrationResultSet>,
  options: { allowUnorderedMigrations?: boolean } = {},
): Promise<MigrationResultSet> {
  const run = async (on: Kysely<Database>, getMigrations: () => Promise<Record<string, Migration>>) => {
    for (;;) {
      const result = await step(new Migrator({ db: on, provider: { getMigrations }, ...options }));
      // SQLite: another process held the write lock past the connection's wait (db/sqlite.ts), most likely another
      // `svc migrate` in a long migration. Its transaction rolled back or never opened, so nothing was done here:
      // wait for it, as PostgreSQL's advisory lock waits, and then find what it left pending.
      if (result.error !== undefined && isSqliteBusy(result.error)) {
        await delay(MIGRATION_LOCK_RETRY_MS);
        continue;
      }
      if (result.error) throw result.error;
      return result;
    }
  };
  if (db.dialect === 'postgres') return run(db.direct, async () => MIGRATIONS);
  return db.direct.connection().execute(async (connection) => {
    await sql`pragma foreign_keys = off`.execute(connection);
    try {
      return await run(connection, async () => KEY_CHECKED_MIGRATIONS);
    } finally {
      await sql`pragma foreign_keys = on`.execute(connection);
    }
  });
}

/**
 * The migrations' transaction as a migration sees it. Written when Kysely ran SQLite's migrations without a
 * transaction, 0005, 0006, 0016 and helpers.ts's allOrNothing open their own with `db.transaction()`, which a
 * transaction refuses. Their files stay as they were (a migration that has run does the same on every later
 * install; test/upgrades.fixtures.test.ts holds them to their releases' text), so here their
 * `transaction().execute(work)` runs `work` in the transaction already open. 0005's `pragma foreign_keys` is one
 * SQLite ignores inside a transaction; runMigrations has foreign keys off.
 */
function enclosing(trx: Kysely<Database>): Kysely<Database> {
  const view: Kysely<Database> = new Proxy(trx, {
    get(target, property) {
      if (property === 'transaction')
        return () => ({ execute: <T>(work: (db: Kysely<Database>) => Promise<T>) => work(view) });
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return view;
}

/** SQLite's: each migration, then a check of every foreign key, in the migrations' transaction. */
const KEY_CHECKED_MIGRATIONS: Record<string, Migration> = Object.fromEntries(
  Object.entries(MIGRATIONS).map(([name, migration]) => [
    name,
    {
      ...migration,
      async up(trx: Kysely<Database>) {
        await migration.up(enclosing(trx));
        const broken = await sql`pragma foreign_key_check`.execute(trx);
        if (broken.rows.length > 0)
          throw new Error(`${name}: foreign keys broken: ${JSON.stringify(broken.rows.slice(0, 5))}`);
      },
    },
  ]),
);
