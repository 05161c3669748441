import { setTimeout as delay } from 'node:timers/promises';
import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import type { Database, Db } from './database.js';
import { errorCode } from './failures.js';
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

/**
 * Whether some migration has not run yet, read without the migrator: its transaction takes SQLite's write lock
 * (every `svc` command migrates first, and would wait for another process's writer) and PostgreSQL's session-level
 * advisory lock, which PgBouncer in transaction mode cannot hold (the lock, the migration and the unlock may each
 * run on another server connection, and the lock outlives them): a server started through such a pool skips the
 * migrator when nothing is pending, and `svc migrate` runs the migrations over a direct connection
 * (docs/operations.md). Any failure to read counts as pending: the migrator then says what is wrong.
 */
export async function migrationsPending(db: Db): Promise<boolean> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db.direct);
    const applied = new Set(rows.map((r) => r.name));
    return Object.keys(MIGRATIONS).some((name) => !applied.has(name));
  } catch {
    return true;
  }
}

/** What a run of the migrations says when it waits for another process's SQLite write lock (once per run). */
export type OnWait = () => void;

const waitingNotice: OnWait = () =>
  process.stderr.write(
    "svc: waiting for the database's write lock, held by another process (another svc migrate, or a server migrating)\n",
  );

export async function migrateToLatest(db: Db, onWait: OnWait = waitingNotice): Promise<string[]> {
  if (!(await migrationsPending(db))) return [];
  // A database made between two merges that landed their migrations out of order (the repository's 1bf87fd had
  // 0027 and not 0025) runs the missing ones too, in name order: migrations merged side by side never depend on
  // each other (docs/operations.md, "Upgrades").
  const result = await runMigrations(db, (migrator) => migrator.migrateToLatest(), {
    allowUnorderedMigrations: true,
    onWait,
  });
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Runs svc's migrations on `db` with `migrator`'s `step` (to the latest, or to one schema), all pending ones and
 * their records in one transaction on both dialects: a second `svc migrate` (or server) waits for the first and
 * then finds nothing to do, and a process killed mid-way leaves the database as it was.
 *
 * SQLite: the adapter says its DDL is transactional (db/sqlite.ts), so Kysely's Migrator opens the transaction
 * (BEGIN IMMEDIATE). Foreign keys are off around it, on the connection held for the whole run: 0005 rebuilds a table
 * others refer to, and the setting cannot change inside a transaction. So no migration's ON DELETE action fires;
 * instead each migration is followed by `pragma foreign_key_check` in the transaction, and one that leaves a broken
 * key the database did not have before the run fails: nothing is applied. PostgreSQL: Kysely's own transaction and
 * advisory lock.
 */
export async function runMigrations(
  db: Db,
  step: (migrator: Migrator) => Promise<MigrationResultSet>,
  options: { allowUnorderedMigrations?: boolean; onWait?: OnWait } = {},
): Promise<MigrationResultSet> {
  const { onWait = waitingNotice, ...settings } = options;
  const once = (on: Kysely<Database>, migrations: Record<string, Migration>) =>
    step(new Migrator({ db: on, provider: { getMigrations: async () => migrations }, ...settings }));
  if (db.dialect === 'postgres') {
    const result = await once(db.direct, MIGRATIONS);
    if (result.error) throw result.error;
    return result;
  }
  return db.direct.connection().execute(async (connection) => {
    await sql`pragma foreign_keys = off`.execute(connection);
    try {
      for (let waited = false; ; waited = true) {
        const result = await once(connection, keyChecked());
        // Another process held the write lock past the connection's own wait (db/sqlite.ts), most likely another
        // `svc migrate` in a long migration. This run's transaction never opened or was rolled back: nothing was
        // done. Wait for it, as PostgreSQL's advisory lock waits, saying so once, then find what it left pending.
        if (result.error !== undefined && errorCode(result.error) === 'SQLITE_BUSY') {
          if (!waited) onWait();
          await delay(MIGRATION_LOCK_RETRY_MS);
          continue;
        }
        if (result.error) throw result.error;
        return result;
      }
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
 * SQLite ignores inside a transaction; runMigrations has foreign keys off. Methods are bound to the transaction
 * (Kysely's read its private fields); what a getter returns (`fn`, `schema`, `dynamic`) is given as it is.
 */
function enclosing(trx: Kysely<Database>): Kysely<Database> {
  const view: Kysely<Database> = new Proxy(trx, {
    get(target, property) {
      if (property === 'transaction')
        return () => ({ execute: <T>(work: (db: Kysely<Database>) => Promise<T>) => work(view) });
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' && isMethod(target, property) ? value.bind(target) : value;
    },
  });
  return view;
}

/** Whether `property` of `object` is a function held as a value on it or its prototypes (not a getter's result). */
function isMethod(object: object, property: string | symbol): boolean {
  for (let at: unknown = object; typeof at === 'object' && at !== null; at = Object.getPrototypeOf(at)) {
    const descriptor = Object.getOwnPropertyDescriptor(at, property);
    if (descriptor) return 'value' in descriptor;
  }
  return false;
}

/** The keys a database breaks, one text per broken key: what `pragma foreign_key_check` lists. */
async function brokenKeys(trx: Kysely<Database>): Promise<Set<string>> {
  const { rows } = await sql<Record<string, unknown>>`pragma foreign_key_check`.execute(trx);
  return new Set(rows.map((row) => JSON.stringify(row)));
}

/**
 * SQLite's migrations for one run: each, then a check of every foreign key, in the migrations' transaction. Keys the
 * database broke before the run (rows written with foreign keys off, by a `sqlite3` shell say) are not this run's:
 * only a key broken anew fails it.
 */
function keyChecked(): Record<string, Migration> {
  let before: Set<string> | undefined;
  return Object.fromEntries(
    Object.entries(MIGRATIONS).map(([name, migration]) => [
      name,
      {
        ...migration,
        async up(trx: Kysely<Database>) {
          before ??= await brokenKeys(trx);
          await migration.up(enclosing(trx));
          const broken = [...(await brokenKeys(trx))].filter((key) => !before!.has(key));
          if (broken.length > 0) throw new Error(`${name}: foreign keys broken: ${broken.slice(0, 5).join(', ')}`);
        },
      },
    ]),
  );
}
