import fs from 'node:fs';
import path from 'node:path';
import { spawnSync, type SpawnOptions } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT, startServer, tempDir } from './support/processes.js';

/** How a server's start ended: it listened (and was stopped), or it exited first, with its code and its words. */
async function started(env: Record<string, string>, as: Pick<SpawnOptions, 'uid' | 'gid'> = {}): Promise<string> {
  try {
    const server = await startServer(env, as);
    server.child.kill('SIGTERM');
    await server.exited;
    return 'listening';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const AS_ROOT = process.getuid?.() === 0;

/**
 * Root writes into any folder: as root, the read-only case runs the server as nobody, which must then be able to read
 * this checkout (its folders traversable by others: a clone under /root is not). Where it cannot, that case is skipped,
 * and says so.
 */
const NOBODY_RUNS_CHECKOUT =
  !AS_ROOT ||
  spawnSync(
    process.execPath,
    [
      '-e',
      'require("better-sqlite3"); require("fs").accessSync(process.argv[1])',
      path.join(ROOT, 'dist', 'server.js'),
    ],
    { cwd: ROOT, uid: 65534, gid: 65534, stdio: 'ignore' },
  ).status === 0;
if (!NOBODY_RUNS_CHECKOUT)
  console.warn(`backup.schedule-dir: nobody cannot read ${ROOT}: the read-only case is skipped`);

const refused = (problem: string) =>
  `server exited early (2): svc: Invalid configuration:\n  - BACKUP_DIR: ${problem}: no scheduled backup could be written\n`;

/**
 * A BACKUP_DIR no backup can be written into (issue 35's operator-flow audit) stops the start, as a bad setting does,
 * before the database is opened: the server started, and its schedule failed every minute. SQLite: the schedule's
 * dialect (PostgreSQL refuses BACKUP_DIR whatever it names).
 */
describe('a BACKUP_DIR that cannot hold a backup (SQLite)', () => {
  it('stops the start when it is a file, or when a file is where its folder would be made', async () => {
    const dir = tempDir('svc-backup-dir-');
    const file = path.join(dir, 'backups');
    fs.writeFileSync(file, '');
    const database = path.join(dir, 'data', 'svc.sqlite');
    expect(await started({ DATABASE_URL: `sqlite:${database}`, BACKUP_DIR: file })).toBe(
      refused(`${file} is a file, not a folder`),
    );
    const below = path.join(file, 'nightly');
    expect(await started({ DATABASE_URL: `sqlite:${database}`, BACKUP_DIR: below })).toBe(
      refused(`${file}, where ${below} would be made, is a file, not a folder`),
    );
    expect(fs.readdirSync(dir)).toEqual(['backups']);
  });

  it.skipIf(!NOBODY_RUNS_CHECKOUT)('stops the start when the folder cannot be written by the server', async () => {
    const dir = tempDir('svc-backup-dir-');
    const readOnly = path.join(dir, 'read-only');
    fs.mkdirSync(readOnly, { mode: 0o555 });
    // As root, the server runs as nobody, which owns the database's folder and may read (not write) the backups' one.
    const root = AS_ROOT;
    const as = root ? { uid: 65534, gid: 65534 } : {};
    const data = path.join(dir, 'data');
    fs.mkdirSync(data);
    if (root) {
      fs.chmodSync(dir, 0o755);
      fs.chownSync(data, 65534, 65534);
    }
    const env = { DATABASE_URL: `sqlite:${path.join(data, 'svc.sqlite')}` };
    expect(await started({ ...env, BACKUP_DIR: readOnly }, as)).toBe(
      refused(`${readOnly} cannot be written by this process (EACCES)`),
    );
    expect(await started({ ...env, BACKUP_DIR: path.join(readOnly, 'nightly') }, as)).toBe(
      refused(
        `${readOnly}, where ${path.join(readOnly, 'nightly')} would be made, cannot be written by this process (EACCES)`,
      ),
    );
    expect(fs.readdirSync(data)).toEqual([]);
    // The same folder, writable: the server starts.
    fs.chmodSync(readOnly, 0o777);
    expect(await started({ ...env, BACKUP_DIR: readOnly }, as)).toBe('listening');
  });
});
