import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { PG_URL } from './dialects.js';

/**
 * Migrated databases to copy from. Migrating a new database costs 0.8–2 s on PostgreSQL and 0.3 s on SQLite, and
 * the suite opens hundreds; a copy of a database migrated once costs ~0.15 s (CREATE DATABASE … TEMPLATE) and a file
 * copy. A template is named by a hash of the migrations' sources, so a change to any migration makes a new one, and
 * runs of different checkouts never share one. The global setup makes the templates (once, under a lock); a process
 * that finds none (a script outside vitest) migrates its database itself.
 */
const MIGRATIONS = new URL('../../src/db/', import.meta.url);

/** A hash of everything that decides the schema: src/db/migrate.ts and every file of src/db/migrations/. */
export function migrationsHash(): string {
  const dir = new URL('migrations/', MIGRATIONS);
  const files = fs.readdirSync(dir).sort();
  const hash = createHash('sha256').update(fs.readFileSync(new URL('migrate.ts', MIGRATIONS)));
  for (const file of files) hash.update(file).update(fs.readFileSync(new URL(file, dir)));
  return hash.digest('hex').slice(0, 16);
}

export const templateName = (hash: string) => `svc_test_template_${hash}`;
const sqliteTemplate = (hash: string) => path.join(os.tmpdir(), 'svc-test-templates', `${hash}.sqlite`);

/** Where the global setup says this run's templates are (environment: inherited by the workers). */
const ENV = { sqlite: 'SVC_TEST_TEMPLATE_SQLITE', postgres: 'SVC_TEST_TEMPLATE_POSTGRES' } as const;
export const templateOf = (dialect: DialectName): string | undefined => process.env[ENV[dialect]] || undefined;

async function migrate(url: string): Promise<void> {
  const db = openDatabase(loadConfig({ DATABASE_URL: url }).database, { poolSize: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.close();
  }
}

/**
 * A template of other migrations (another checkout's, an older commit's) not used for this long is dropped by the
 * global setup. Each run marks its own as used (a file's time, a database's comment), so a checkout still testing keeps
 * its template; one whose template went all the same makes empty databases and migrates them (databases.ts).
 */
const STALE_MS = 7 * 24 * 3600_000;
const SQLITE_TEMPLATE = /^[0-9a-f]{16}\.sqlite$/;

/** Makes the migrated template of `dialect` unless it exists, and records it in the environment. */
export async function ensureTemplate(dialect: DialectName): Promise<void> {
  const hash = migrationsHash();
  if (dialect === 'sqlite') {
    const file = sqliteTemplate(hash);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Made under a name of its own, then renamed: a concurrent maker's file is never read half-written.
      const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.partial`;
      await migrate(`sqlite:${partial}`);
      for (const suffix of ['-wal', '-shm']) fs.rmSync(`${partial}${suffix}`, { force: true });
      fs.renameSync(partial, file);
    }
    const now = new Date();
    fs.utimesSync(file, now, now);
    for (const other of fs.readdirSync(path.dirname(file))) {
      const at = path.join(path.dirname(file), other);
      // Only finished templates: another run's partial file may be renamed or removed under this loop.
      const stat = SQLITE_TEMPLATE.test(other) && at !== file ? fs.statSync(at, { throwIfNoEntry: false }) : undefined;
      if (stat && now.getTime() - stat.mtimeMs > STALE_MS) fs.rmSync(at, { force: true });
    }
    process.env[ENV.sqlite] = file;
    return;
  }
  const name = templateName(hash);
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    // One maker at a time (vitest runs the global setup once per project; other checkouts' runs share the server).
    await admin.query('select pg_advisory_lock(hashtext($1))', ['svc test templates']);
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      const partial = `${name}_partial`;
      await admin.query(`drop database if exists ${partial} with (force)`);
      await admin.query(`create database ${partial}`);
      const url = new URL(PG_URL);
      url.pathname = `/${partial}`;
      await migrate(url.toString());
      await admin.query(`alter database ${partial} rename to ${name}`);
    }
    await admin.query(`comment on database ${name} is '${new Date().toISOString()}'`); // used now
    const stale = await admin.query<{ datname: string; made: string | null }>(
      `select datname, shobj_description(oid, 'pg_database') as made from pg_database
        where datname like 'svc\\_test\\_template\\_%' and datname <> $1`,
      [name],
    );
    for (const { datname, made } of stale.rows) {
      if (made && Date.now() - Date.parse(made) > STALE_MS) {
        await admin.query(`drop database if exists ${datname}`).catch(() => {}); // in use: left for another day
      }
    }
  } finally {
    await admin.query('select pg_advisory_unlock(hashtext($1))', ['svc test templates']).catch(() => {});
    await admin.end();
  }
  process.env[ENV.postgres] = name;
}
