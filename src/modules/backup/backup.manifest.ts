import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { DialectName } from '../../db/database.js';
import { LOWER_OWN_PRIORITY } from './backup.priority.js';

/** A backup is a directory: this manifest beside one data file (a SQLite database, or pg_dump's custom format). */
export const MANIFEST_FILE = 'manifest.json';
export const DATA_FILE: { readonly [D in DialectName]: string } = { sqlite: 'data.sqlite', postgres: 'data.pgdump' };
const Count = Type.Integer({ minimum: 0 });
const MANIFEST = Type.Object({
  format: Type.Literal('svc-backup'),
  format_version: Type.Literal(1),
  svc_version: Type.String(),
  dialect: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  /** The last migration the backed-up database had run: its schema version. */
  schema_version: Type.String({ minLength: 1 }),
  migrations: Type.Array(Type.String()),
  created_at: Type.String(),
  data_file: Type.Union([Type.Literal(DATA_FILE.sqlite), Type.Literal(DATA_FILE.postgres)]),
  bytes: Count,
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  /** Rows per table, read in the backup's own snapshot. */
  tables: Type.Record(Type.String(), Count),
  /** SQLite: receipt files in the backup's receipts/ folder (PostgreSQL: their bytes are in the dump). */
  receipts: Type.Optional(Count),
});
export type BackupManifest = Static<typeof MANIFEST>;

/** A backup that cannot be used as it is, or a target that must not be written: the message says which and why. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

/** A backup stopped by its caller (the server shutting down while a scheduled backup runs). */
export class BackupStopped extends Error {
  override readonly name = 'BackupStopped';
  constructor() {
    super('the backup was stopped');
  }
}

/**
 * A SHA-256 of the file, read and hashed 1 MiB at a time in a worker thread: the caller's thread goes on meanwhile
 * (a SQLite backup checks its copy while the copy is hashed). The worker is plain CommonJS given as text, so that
 * the bundled CLI carries it. `signal` ends it early (a refused copy's checksum, a backup stopped at shutdown): it
 * runs no native call that could not be ended. `nice`: the worker thread's priority (a backup's: BACKUP_NICE).
 */
export function sha256Of(file: string, options: { signal?: AbortSignal; nice?: number } = {}): Promise<string> {
  const { signal, nice = 0 } = options;
  const worker = new Worker(HASH_WORKER, { eval: true, workerData: { file, nice } });
  const stop = () => void worker.terminate();
  signal?.addEventListener('abort', stop, { once: true });
  return new Promise<string>((resolve, reject) => {
    worker.once('message', (digest: string) => resolve(digest));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(signal?.aborted ? new BackupStopped() : new Error(`the checksum of ${file} stopped (exit ${code})`)),
    );
    if (signal?.aborted) stop();
  }).finally(() => signal?.removeEventListener('abort', stop));
}

const HASH_WORKER = `${LOWER_OWN_PRIORITY}
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const hash = createHash('sha256');
const fd = fs.openSync(workerData.file, 'r');
const buffer = Buffer.alloc(1 << 20);
try {
  for (;;) {
    const read = fs.readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    hash.update(buffer.subarray(0, read));
  }
} finally {
  fs.closeSync(fd);
}
parentPort.postMessage(hash.digest('hex'));
`;

export function newManifest(
  parts: Omit<BackupManifest, 'format' | 'format_version' | 'schema_version' | 'data_file'>,
): BackupManifest {
  const schema = [...parts.migrations].sort().at(-1);
  if (schema === undefined) throw new BackupError('the database has no migration applied: nothing to back up');
  return {
    format: 'svc-backup',
    format_version: 1,
    schema_version: schema,
    data_file: DATA_FILE[parts.dialect],
    ...parts,
  };
}

/** The manifest of the backup in `dir`, checked member by member, and its data file checked against it. */
export async function verifiedBackup(
  dir: string,
  /** The data file's SHA-256 when the caller has just taken it (a backup being written): not read again. */
  knownSha256?: string,
): Promise<{ manifest: BackupManifest; dataFile: string }> {
  const backup = readBackup(dir);
  checksumMustMatch(backup, knownSha256 ?? (await sha256Of(backup.dataFile)));
  return backup;
}

/**
 * The manifest of the backup in `dir`, checked member by member, and its data file's presence and size: all but its
 * checksum, which the caller takes (verifiedBackup, or a restore beside its other reads of the file).
 */
export function readBackup(dir: string): { manifest: BackupManifest; dataFile: string } {
  const file = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(file)) {
    throw new BackupError(
      fs.existsSync(dir) ? `${dir} is not a svc backup: it has no ${MANIFEST_FILE}` : `${dir} does not exist`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    throw new BackupError(`${file} is not valid JSON: the backup is damaged`);
  }
  if (!Value.Check(MANIFEST, parsed)) {
    const problems = Value.Errors(MANIFEST, parsed).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new BackupError(`${file} is damaged: ${[...new Set(problems)].join('; ')}`);
  }
  const manifest = parsed;
  if (manifest.data_file !== DATA_FILE[manifest.dialect])
    throw new BackupError(
      `${file} is damaged: a ${manifest.dialect} backup's data file is ${DATA_FILE[manifest.dialect]}`,
    );
  const dataFile = path.join(dir, manifest.data_file);
  if (!fs.existsSync(dataFile)) throw new BackupError(`${dataFile} is missing: the backup is incomplete`);
  const bytes = fs.statSync(dataFile).size;
  if (bytes !== manifest.bytes)
    throw new BackupError(`${dataFile} has ${bytes} bytes, the manifest says ${manifest.bytes}: the backup is damaged`);
  return { manifest, dataFile };
}

/** Refuses a data file whose SHA-256 (`sha`) is not its manifest's. */
export function checksumMustMatch(backup: { manifest: BackupManifest; dataFile: string }, sha: string): void {
  if (sha !== backup.manifest.sha256)
    throw new BackupError(
      `${backup.dataFile}'s SHA-256 is ${sha}, the manifest says ${backup.manifest.sha256}: the backup is damaged`,
    );
}

/** Row counts that differ between what a backup says and what a database holds, one line per table. */
export function countDifferences(expected: Record<string, number>, found: Record<string, number>): string[] {
  const names = [...new Set([...Object.keys(expected), ...Object.keys(found)])].sort();
  return names
    .filter((t) => expected[t] !== found[t])
    .map((t) => `${t}: ${expected[t] ?? 'absent'} in the backup, ${found[t] ?? 'absent'} restored`);
}
