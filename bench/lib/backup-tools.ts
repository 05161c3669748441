import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { Settings } from './context.js';

/** What the backup bench (bench/scenarios/backup.ts) times its commands and floors with. */

export const run = promisify(execFile);

export const load1 = () => os.loadavg()[0]!.toFixed(1);

/** Seconds that `work` takes, and the machine's load average (1 minute) at its start and end. */
export async function timed<T>(work: () => Promise<T>): Promise<{ seconds: number; load: string; value: T }> {
  const before = load1();
  const started = performance.now();
  const value = await work();
  return { seconds: (performance.now() - started) / 1000, load: `load ${before}→${load1()}`, value };
}

/** The fastest of the rounds (the machine's noise only ever slows a run down). */
export const fastest = <T extends { seconds: number }>(xs: T[]): T =>
  xs.reduce((a, b) => (b.seconds < a.seconds ? b : a));

/** `svc …` in a child process, awaited without blocking the bench (its load generator runs meanwhile). */
export async function svcAsync(root: string, argv: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await run(process.execPath, [path.join(root, 'bin/svc.js'), ...argv], {
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** libpq's variables for a database URL: the bare tools take the connection as svc's do, never on the command line. */
export function libpq(url: string): NodeJS.ProcessEnv {
  const u = new URL(url);
  return {
    ...process.env,
    PGHOST: u.hostname,
    PGPORT: u.port || '5432',
    PGDATABASE: decodeURIComponent(u.pathname.slice(1)),
    ...(u.username ? { PGUSER: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}),
  };
}

export const sqlitePath = (url: string) => url.slice('sqlite:'.length);

/** A copy of `from` at `to`, flushed: what a file copy of a quiet database costs (a backup is flushed too). */
export async function rawCopy(from: string, to: string): Promise<void> {
  await fs.promises.copyFile(from, to);
  const handle = await fs.promises.open(to, 'r+');
  await handle.sync();
  await handle.close();
}

/**
 * The file read through once, unmeasured, before each side of a SQLite pair: both the floor and svc then start from
 * the same warm page cache (the machine's other work may have evicted part of it since the last side ran).
 */
export async function warm(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.alloc(8 << 20);
    while ((await handle.read(buffer, 0, buffer.length, null)).bytesRead > 0);
  } finally {
    await handle.close();
  }
}

/**
 * PostgreSQL's raw read of the data: `COPY … TO STDOUT` of every table of the schema, one after the other in one
 * psql session (text format, uncompressed), into one file, flushed. What a dump of the same rows cannot beat.
 */
export async function pgCopyOut(url: string, to: string): Promise<void> {
  const tables = await withPg(url, async (c) => {
    const { rows } = await c.query<{ name: string }>(
      'select tablename as name from pg_tables where schemaname = current_schema() order by tablename',
    );
    return rows.map((r) => r.name);
  });
  const args = ['-X', '-q', '-v', 'ON_ERROR_STOP=1'];
  for (const t of tables) args.push('-c', `COPY "${t.replace(/"/g, '""')}" TO STDOUT`);
  const out = await fs.promises.open(to, 'w');
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('psql', args, { env: libpq(url), stdio: ['ignore', out.fd, 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`psql COPY out: ${code} ${stderr}`))));
    });
    await out.sync();
  } finally {
    await out.close();
  }
}

/** Everything in the WAL written into the database file, the WAL emptied: the file alone is then the database. */
export function checkpoint(file: string): void {
  const db = new SqliteDatabase(file, { fileMustExist: true, timeout: 60_000 });
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (result?.busy) throw new Error('backup bench: the checkpoint was blocked (the server is not quiet)');
  } finally {
    db.close();
  }
}

export async function withPg<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** A new empty PostgreSQL database beside the bench's (the same server), dropped by `drop`. */
export async function emptyPg(settings: Settings): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_bench_restore_${randomUUID().slice(0, 8)}`;
  await withPg(settings.pgUrl, (c) => c.query(`create database ${name}`));
  const url = new URL(settings.pgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withPg(settings.pgUrl, (c) => c.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}
