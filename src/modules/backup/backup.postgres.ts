import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import type PgModule from 'pg';
import { BackupError, BackupStopped, sha256Of } from './backup.manifest.js';

const run = promisify(execFile);
const MAX_OUTPUT = 16 * 1024 * 1024;

function pgModule(): typeof PgModule {
  return createRequire(import.meta.url)('pg');
}

/** The PostgreSQL client tool `name`, found on PATH, or an error that names the Debian package it comes in. */
async function tool(name: 'pg_dump' | 'pg_restore', env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await run(name, ['--version'], { env });
  } catch {
    throw new BackupError(
      `${name} was not found on PATH: install PostgreSQL's client tools (Debian: apt-get install postgresql-client)`,
    );
  }
}

/**
 * pg_dump and pg_restore take the connection from libpq's variables over `base` (the CLI's environment, for PATH and
 * the like), never from the command line, where the password would show.
 */
function libpqEnv(url: string, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const u = new URL(url);
  const env: NodeJS.ProcessEnv = {
    ...base,
    PGHOST: decodeURIComponent(u.hostname),
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)),
  };
  if (u.port) env.PGPORT = u.port;
  if (u.username) env.PGUSER = decodeURIComponent(u.username);
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  for (const [key, value] of u.searchParams) {
    if (key === 'sslmode') env.PGSSLMODE = value;
    if (key === 'application_name') env.PGAPPNAME = value;
  }
  return env;
}

async function contents(client: PgModule.Client): Promise<{ tables: Record<string, number>; migrations: string[] }> {
  const { rows } = await client.query<{ tablename: string }>(
    'select tablename from pg_tables where schemaname = current_schema() order by tablename',
  );
  const tables: Record<string, number> = {};
  for (const { tablename } of rows) {
    const counted = await client.query<{ n: string }>(`select count(*) as n from "${tablename.replaceAll('"', '""')}"`);
    tables[tablename] = Number(counted.rows[0]!.n);
  }
  const migrations = rows.some((r) => r.tablename === 'kysely_migration')
    ? (await client.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name)
    : [];
  return { tables, migrations };
}

async function connected<T>(url: string, work: (client: PgModule.Client) => Promise<T>): Promise<T> {
  const client = new (pgModule().Client)({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * pg_dump in its custom format, from one snapshot: a repeatable-read transaction exports its snapshot, counts the
 * tables in it, and pg_dump reads that same snapshot (--snapshot) while the transaction stays open. The service
 * keeps writing meanwhile; the counts and the dump agree.
 */
export async function backupPostgres(
  url: string,
  target: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<{ tables: Record<string, number>; migrations: string[]; sha256: string }> {
  await tool('pg_dump', env);
  const read = await connected(url, async (client) => {
    await client.query('begin isolation level repeatable read read only');
    try {
      const { rows } = await client.query<{ snapshot: string }>('select pg_export_snapshot() as snapshot');
      const counted = await contents(client);
      await run(
        'pg_dump',
        ['--format=custom', '--compress=1', `--snapshot=${rows[0]!.snapshot}`, '--no-owner', '--file', target],
        {
          env: libpqEnv(url, env),
          maxBuffer: MAX_OUTPUT,
          // Stopped with the backup (the server shutting down): pg_dump is ended, not left running.
          signal,
        },
      ).catch((error: { stderr?: string }) => {
        if (signal?.aborted) throw new BackupStopped();
        throw new BackupError(`pg_dump failed: ${String(error.stderr ?? error).trim()}`);
      });
      return counted;
    } finally {
      await client.query('rollback');
    }
  });
  // Once the snapshot is let go: the dump is a file of its own now.
  return { ...read, sha256: await sha256Of(target, signal) };
}

export const postgresContents = (url: string) => connected(url, contents);

/** The tables the database at `url` holds in its schema: a restore writes only into none. */
export const postgresTablesAt = (url: string): Promise<string[]> =>
  connected(url, async (client) => {
    const { rows } = await client.query<{ tablename: string }>(
      'select tablename from pg_tables where schemaname = current_schema() order by tablename',
    );
    return rows.map((r) => r.tablename);
  });

/** pg_restore in one transaction: it restores all of the backup or, on any error, nothing. */
export async function restorePostgres(dataFile: string, url: string, env: NodeJS.ProcessEnv): Promise<void> {
  await tool('pg_restore', env);
  await run(
    'pg_restore',
    [
      '--single-transaction',
      '--exit-on-error',
      '--no-owner',
      '--no-privileges',
      '--dbname',
      decodeURIComponent(new URL(url).pathname.slice(1)),
      dataFile,
    ],
    {
      env: libpqEnv(url, env),
      maxBuffer: MAX_OUTPUT,
    },
  ).catch((error: { stderr?: string }) => {
    throw new BackupError(`pg_restore failed, nothing was restored: ${String(error.stderr ?? error).trim()}`);
  });
}
