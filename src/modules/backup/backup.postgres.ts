import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import type PgModule from 'pg';
import { BackupError, BackupStopped, countDifferences, sha256Of } from './backup.manifest.js';
import { BACKUP_NICE } from './backup.priority.js';

const run = promisify(execFile);
const MAX_OUTPUT = 16 * 1024 * 1024;

function pgModule(): typeof PgModule {
  return createRequire(import.meta.url)('pg');
}

/** The PostgreSQL client tool `name`, found on PATH, or an error that names the Debian package it comes in. */
async function tool(name: 'pg_dump' | 'pg_restore' | 'psql', env: NodeJS.ProcessEnv): Promise<void> {
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
  return { ...read, sha256: await sha256Of(target, { signal, nice: BACKUP_NICE }) };
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

/**
 * A child's end: its exit code, and what it said: the start of its stderr, or how it ended when it said nothing
 * (pg_restore dies of SIGSEGV on some damaged files without a word).
 */
function ended(name: string, child: ChildProcess): Promise<{ code: number | null; said: string }> {
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    if (stderr.length < MAX_OUTPUT) stderr += text;
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) =>
      resolve({
        code,
        said: stderr.trim() || `${name} ${code === null ? `was ended by ${signal}` : `exited with ${code}`}`,
      }),
    ),
  );
}

const COUNTS_MARK = 'svc-restore-counts';

/**
 * Run last in the restore's transaction: every table of the schema counted and compared with `expected` (the
 * manifest's), an error naming the counts found when they differ. The restore's script empties search_path first.
 */
function countCheck(expected: Record<string, number>): string {
  const literal = `'${JSON.stringify(expected).replaceAll("'", "''")}'`;
  return `
reset search_path;
do $svc_restore$
declare
  expected jsonb := ${literal}::jsonb;
  found jsonb := '{}'::jsonb;
  t text;
  n bigint;
begin
  for t in select tablename from pg_tables where schemaname = current_schema() loop
    execute format('select count(*) from %I', t) into n;
    found := found || jsonb_build_object(t, n);
  end loop;
  if found <> expected then
    raise exception '${COUNTS_MARK} %', found::text;
  end if;
end
$svc_restore$;
`;
}

/**
 * The backup restored in one transaction that also checks it: pg_restore writes the backup as SQL (`--file -`)
 * and psql runs it in one transaction (`--single-transaction`, stopping at the first error), followed by the count
 * of every table against the manifest's (countCheck). A backup whose data is not what its manifest says, or a
 * pg_restore or psql that fails half-way, ends before the commit: all of it is restored, or nothing.
 * (pg_restore's own `--single-transaction` committed before the counts could be compared.)
 */
export async function restorePostgres(
  dataFile: string,
  url: string,
  env: NodeJS.ProcessEnv,
  expected: Record<string, number>,
): Promise<void> {
  await tool('pg_restore', env);
  await tool('psql', env);
  const connection = libpqEnv(url, env);
  const script = spawn('pg_restore', ['--no-owner', '--no-privileges', '--file', '-', dataFile], {
    env: connection,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const psql = spawn(
    'psql',
    ['--no-psqlrc', '--quiet', '--single-transaction', '--set', 'ON_ERROR_STOP=1', '--file', '-'],
    { env: connection, stdio: ['pipe', 'ignore', 'pipe'] },
  );
  const scripted = ended('pg_restore', script);
  const ran = ended('psql', psql);
  // psql gone early (it could not connect, or a statement failed): its end says why, and pg_restore is stopped.
  psql.stdin.on('error', () => undefined);
  void ran.then(() => {
    if (script.exitCode === null) script.kill('SIGKILL');
  });
  script.stdout.pipe(psql.stdin, { end: false });
  const made = await scripted;
  if (made.code !== 0) {
    // psql never reaches the end of its input, where it would commit: killed, its transaction is rolled back.
    psql.kill('SIGKILL');
    const gone = await ran;
    throw new BackupError(`the restore failed, nothing was restored: ${gone.code === null ? made.said : gone.said}`);
  }
  psql.stdin.end(countCheck(expected));
  const { code, said } = await ran;
  if (code === 0) return;
  const counts = new RegExp(`${COUNTS_MARK} (\\{.*\\})`).exec(said);
  if (counts) {
    const found: Record<string, number> = {};
    const parsed: unknown = JSON.parse(counts[1]!);
    if (typeof parsed === 'object' && parsed !== null)
      for (const [table, n] of Object.entries(parsed)) found[table] = Number(n);
    throw new BackupError(
      `the backup's data file does not hold what its manifest says, nothing was restored: ${countDifferences(expected, found).join('; ')}`,
    );
  }
  throw new BackupError(`the restore failed, nothing was restored: ${said}`);
}
