import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/open.js';
import { nowMicros } from '../src/lib/clock.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { backupStep, kept, scheduledName, startBackupSchedule } from '../src/modules/backup/backup.schedule.js';
import { describeDatabase } from '../src/cli/database-name.js';
import { verifiedBackup } from '../src/modules/backup/backup.manifest.js';
import { BACKUP_NICE } from '../src/modules/backup/backup.priority.js';
import { createTestDatabase } from './support/databases.js';
import { childEnv, collect, ROOT, startServer, tempDir } from './support/processes.js';
import { until } from './support/wait.js';

const at = (iso: string) => new Date(iso);
const SCHEDULE = { everyHours: 24, keepDaily: 3, keepWeekly: 2 };

/** A new migrated SQLite database, its config and backup target, and a folder for its backups. */
async function migratedSqlite() {
  const database = await createTestDatabase('sqlite');
  const config = loadConfig({ DATABASE_URL: database.url });
  const target = { ...config.database, receiptsDir: config.receipts.dir };
  const db = openDatabase(target, { poolSize: 1 });
  await migrateToLatest(db);
  await db.close();
  return { database, target, dir: path.join(tempDir('svc-schedule-'), 'backups') };
}

/** A connection of this process holding the database's file exclusively (until `exec('rollback')`). */
function lockedExclusively(target: { dialect: string; path?: string }): SqliteDatabase.Database {
  if (target.dialect !== 'sqlite' || target.path === undefined) throw new Error('a SQLite database was asked for');
  const locker = new SqliteDatabase(target.path);
  locker.pragma('locking_mode = EXCLUSIVE');
  locker.exec('begin exclusive');
  locker.prepare('select count(*) from kysely_migration').get();
  return locker;
}

/** The nice value of each thread of a process (Linux: a nice value is a thread's), by thread id. */
function threadNices(pid: number | 'self' = 'self'): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    // Fields after the command's name (in parentheses, which may hold spaces): nice is the 19th field of the line.
    // A thread that ended since the listing (an earlier backup's worker leaving) is skipped.
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    nices.set(Number(tid), Number(after[16]));
  }
  return nices;
}

/** A logger that keeps what it is told at warn and info, in order (the others are dropped). */
function recordingLog() {
  const lines: { level: string; fields: unknown; message: string }[] = [];
  const record = (level: string) => (fields: unknown, message?: string) =>
    void lines.push({ level, fields, message: String(message) });
  const quiet = () => {};
  const log: FastifyBaseLogger = {
    level: 'info',
    ...{ warn: record('warn'), info: record('info') },
    ...{ error: quiet, debug: quiet, trace: quiet, fatal: quiet, silent: quiet },
    child: () => log,
  };
  return { log, lines };
}

describe('scheduled backups (SQLite)', () => {
  it('backs up when the newest is due, and keeps the newest of the last days and weeks', async () => {
    const { database, target, dir } = await migratedSqlite();
    const schedule = { dir, ...SCHEDULE };
    const step = (iso: string) => backupStep(target, schedule, { svcVersion: 'test', now: at(iso) });
    try {
      expect(await step('2026-11-02T03:00:00Z')).toEqual({ taken: 'svc-20261102T030000Z', removed: [], future: [] });
      // Not yet due: nothing taken.
      expect(await step('2026-11-02T20:00:00Z')).toEqual({ taken: null, removed: [], future: [] });
      const days = ['2026-11-03', '2026-11-04', '2026-11-09', '2026-11-10', '2026-11-11'];
      const results = [];
      for (const day of days) results.push(await step(`${day}T03:00:00Z`));
      expect(results.map((r) => r.taken)).toEqual(days.map((d) => scheduledName(at(`${d}T03:00:00Z`))));
      // Three newest days (11-11, 11-10, 11-09) and the newest of two newest ISO weeks (week of 11-09, of 11-02).
      expect(fs.readdirSync(dir).sort()).toEqual([
        'svc-20261104T030000Z',
        'svc-20261109T030000Z',
        'svc-20261110T030000Z',
        'svc-20261111T030000Z',
      ]);
      expect(results.flatMap((r) => r.removed).sort()).toEqual(['svc-20261102T030000Z', 'svc-20261103T030000Z']);
      for (const name of fs.readdirSync(dir)) await verifiedBackup(path.join(dir, name));
    } finally {
      await database.drop();
    }
  });

  it("waits for the database in a thread of its own: the server's process goes on meanwhile", async () => {
    const { database, target, dir } = await migratedSqlite();
    // The file held by this process's own connection: a backup on this thread would wait in SQLite's busy handler,
    // so that nothing here could run to let it go before the wait ran out (a minute) and the backup failed.
    const locker = lockedExclusively(target);
    // No thread of an earlier backup of this process is still leaving (its result answers before its thread ends).
    const own = os.getPriority();
    await until("earlier backups' threads ended", () => [...threadNices().values()].every((nice) => nice === own));
    try {
      const taking = backupStep(target, { dir, ...SCHEDULE }, { svcVersion: 'test', now: at('2026-11-02T03:00:00Z') });
      // The copy's file is made when the backup opens it, just before it asks the source for a read lock, and waits.
      await until('the copy opened', () =>
        fs.readdirSync(dir).some((n) => n.includes('.partial-') && fs.existsSync(path.join(dir, n, 'data.sqlite'))),
      );
      expect(fs.readdirSync(dir).filter((n) => !n.includes('.partial-'))).toEqual([]);
      // The backup's thread yields the CPU to the service (nice 10); this one, as the server's would, keeps its own.
      expect([...threadNices().values()].filter((nice) => nice !== own)).toEqual([BACKUP_NICE]);
      expect(os.getPriority()).toBe(own);
      locker.exec('rollback');
      locker.close();
      expect(await taking).toEqual({ taken: 'svc-20261102T030000Z', removed: [], future: [] });
      const { manifest } = await verifiedBackup(path.join(dir, 'svc-20261102T030000Z'));
      expect(manifest.tables.kysely_migration).toBe(manifest.migrations.length);
    } finally {
      if (locker.open) locker.close();
      await database.drop();
    }
  });

  it('never raises the priority of a service started at a lower one: svc backup under `nice -n 15`', async () => {
    const { database, target } = await migratedSqlite();
    const out = path.join(tempDir('svc-nice-'), 'backup');
    const locker = lockedExclusively(target);
    // As an operator starts it; nice execs node, so the child's pid is svc's. A thread may only lower its priority
    // (a higher nice value) unless privileged: a backup that tried to raise it back to 10 would fail, as a user.
    const child = spawn('nice', ['-n', '15', process.execPath, path.join(ROOT, 'bin/svc.js'), 'backup', '--out', out], {
      cwd: ROOT,
      env: childEnv({ DATABASE_URL: database.url }),
    });
    const exited = collect(child);
    try {
      // The copy's file is made just before the copy asks for the read lock this test holds: the worker is up.
      await until('the copy opened', () =>
        fs.readdirSync(path.dirname(out)).some((n) => fs.existsSync(path.join(path.dirname(out), n, 'data.sqlite'))),
      );
      const nices = [...threadNices(child.pid!).values()];
      expect(nices.length).toBeGreaterThan(1);
      expect(new Set(nices)).toEqual(new Set([15]));
      locker.exec('rollback');
      locker.close();
      const done = await exited;
      expect([done.code, done.stderr]).toEqual([0, `svc: database ${describeDatabase(target)}\n`]);
      expect((await verifiedBackup(out)).manifest.tables.kysely_migration).toBeGreaterThan(0);
    } finally {
      if (locker.open) locker.close();
      child.kill('SIGKILL');
      await exited;
      await database.drop();
    }
  });

  it('stops a backup under way when the server stops: its threads ended, nothing of it left', async () => {
    const { database, target, dir } = await migratedSqlite();
    // As above: the backup waits for the lock this connection holds, and the server is told to stop meanwhile.
    const locker = lockedExclusively(target);
    const logged: string[] = [];
    const quiet = () => {};
    const log: FastifyBaseLogger = {
      level: 'info',
      info: (_: unknown, message?: string) => void logged.push(String(message)),
      ...{ error: quiet, warn: quiet, debug: quiet, trace: quiet, fatal: quiet, silent: quiet },
      child: () => log,
    };
    try {
      const schedule = startBackupSchedule(target, { dir, ...SCHEDULE }, log, 'test');
      await until('the copy opened', () =>
        fs.readdirSync(dir).some((n) => n.includes('.partial-') && fs.existsSync(path.join(dir, n, 'data.sqlite'))),
      );
      // Resolves with the lock still held: the backup did not wait its minute for it.
      await schedule.stop();
      expect(fs.readdirSync(dir)).toEqual([]);
      expect(logged).toEqual(['scheduled backup stopped at shutdown']);
    } finally {
      locker.exec('rollback');
      locker.close();
      await database.drop();
    }
  });

  it('keeps only what the rule says, whatever else is in the folder', () => {
    const backups = ['2026-11-11T05', '2026-11-11T03', '2026-11-01T03', '2026-10-20T03'].map((h) => ({
      name: scheduledName(at(`${h}:00:00Z`)),
      at: at(`${h}:00:00Z`),
    }));
    expect([...kept(backups, { dir: '', everyHours: 1, keepDaily: 1, keepWeekly: 0 })]).toEqual([
      'svc-20261111T050000Z',
    ]);
    expect([...kept(backups, { dir: '', everyHours: 1, keepDaily: 2, keepWeekly: 3 })].sort()).toEqual([
      'svc-20261020T030000Z',
      'svc-20261101T030000Z',
      'svc-20261111T050000Z',
    ]);
  });

  it('leaves a backup dated in the future out of when one is due and of retention, and in place', async () => {
    const { database, target, dir } = await migratedSqlite();
    const schedule = { dir, everyHours: 1, keepDaily: 2, keepWeekly: 2 };
    const step = (iso: string) => backupStep(target, schedule, { svcVersion: 'test', now: at(iso) });
    try {
      for (const day of ['2026-11-02', '2026-11-26', '2026-11-27']) await step(`${day}T03:00:00Z`);
      // The audit's case: a backup folder named a week ahead of the clock (copied in, or the clock was ahead).
      const ahead = 'svc-20261205T000000Z';
      fs.cpSync(path.join(dir, 'svc-20261102T030000Z'), path.join(dir, ahead), { recursive: true });
      // Due by 11-27's backup; the days (11-28, 11-27) and weeks (of 11-23, of 11-02) of the backups up to now.
      expect(await step('2026-11-28T06:48:00Z')).toEqual({
        taken: 'svc-20261128T064800Z',
        removed: ['svc-20261126T030000Z'],
        future: [ahead],
      });
      // Due again an hour after the backup just taken, not an hour after the future one.
      expect(await step('2026-11-28T07:00:00Z')).toEqual({ taken: null, removed: [], future: [ahead] });
      expect(await step('2026-11-28T07:48:00Z')).toEqual({
        taken: 'svc-20261128T074800Z',
        removed: ['svc-20261128T064800Z'],
        future: [ahead],
      });
      expect(fs.readdirSync(dir).sort()).toEqual([
        'svc-20261102T030000Z',
        'svc-20261127T030000Z',
        'svc-20261128T074800Z',
        ahead,
      ]);
      for (const name of fs.readdirSync(dir)) await verifiedBackup(path.join(dir, name));
    } finally {
      await database.drop();
    }
  });

  it('warns once a start of a backup dated in the future, naming it, and takes the backup due', async () => {
    const { database, target, dir } = await migratedSqlite();
    const elsewhere = path.join(tempDir('svc-schedule-'), 'elsewhere');
    const { log, lines } = recordingLog();
    // The minute's timer is faked, so that the test runs the schedule's second check itself.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      await backupStep(target, { dir: elsewhere, ...SCHEDULE }, { svcVersion: 'test', now: at('2026-11-02T03:00Z') });
      // The only backup in the folder is a week ahead of this process's clock.
      const ahead = scheduledName(new Date(nowMicros() / 1000 + 7 * 86_400_000));
      fs.cpSync(path.join(elsewhere, 'svc-20261102T030000Z'), path.join(dir, ahead), { recursive: true });
      const schedule = startBackupSchedule(target, { dir, ...SCHEDULE }, log, 'test');
      await until('the first check', () => lines.some((l) => l.message === 'scheduled backup'));
      vi.advanceTimersByTime(60_000);
      await schedule.stop();
      const taken = fs.readdirSync(dir).find((name) => name !== ahead);
      expect(lines).toEqual([
        {
          level: 'warn',
          fields: { dir, backup: ahead, now: expect.any(String) },
          message:
            'scheduled backup dated in the future: not counted as the newest nor by retention, and left in place; ' +
            'check the system clock, then rename or remove that folder',
        },
        { level: 'info', fields: { dir, taken, removed: [] }, message: 'scheduled backup' },
      ]);
      expect(fs.readdirSync(dir).sort()).toEqual([taken, ahead]);
      expect(taken! < ahead).toBe(true);
    } finally {
      vi.useRealTimers();
      await database.drop();
    }
  });

  it('is started by the server when BACKUP_DIR is set, and refused on PostgreSQL', async () => {
    const database = await createTestDatabase('sqlite');
    const dir = path.join(tempDir('svc-schedule-'), 'nightly');
    const server = await startServer({ DATABASE_URL: database.url, BACKUP_DIR: dir });
    try {
      const name = await until('a scheduled backup', () =>
        fs.existsSync(dir) ? fs.readdirSync(dir).find((n) => /^svc-\d{8}T\d{6}Z$/.test(n)) : undefined,
      );
      await until('its manifest', () => fs.existsSync(path.join(dir, name, 'manifest.json')));
      expect((await verifiedBackup(path.join(dir, name))).manifest.dialect).toBe('sqlite');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await database.drop();
    }
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@127.0.0.1/x', BACKUP_DIR: '/tmp/x' })).toThrow(ConfigError);
  });
});
