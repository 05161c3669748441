import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { BackupSchedule, DatabaseTarget } from '../../config.js';
import { nowMicros } from '../../lib/clock.js';
import { BackupStopped, MANIFEST_FILE } from './backup.manifest.js';
import { takeBackup } from './backup.service.js';

/** A scheduled backup's name: `svc-` and its UTC time, so that names sort by age. */
const NAME = /^svc-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const CHECK_EVERY_MS = 60_000;

export function scheduledName(at: Date): string {
  return `svc-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')}`;
}

/** The complete scheduled backups in `dir` (a manifest written), newest first, with their times. */
function scheduledBackups(dir: string): { name: string; at: Date }[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .flatMap((name) => {
      const m = NAME.exec(name);
      if (!m || !fs.existsSync(path.join(dir, name, MANIFEST_FILE))) return [];
      return [{ name, at: new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!)) }];
    })
    .sort((a, b) => b.at.getTime() - a.at.getTime());
}

/** The ISO week of a UTC date, as "year-week". */
function isoWeek(at: Date): string {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  return `${d.getUTCFullYear()}-${Math.ceil(((d.getTime() - yearStart) / 86_400_000 + 1) / 7)}`;
}

/**
 * The scheduled backups retention keeps: the newest of each of the `keepDaily` newest days, the newest of each of
 * the `keepWeekly` newest ISO weeks, and always the newest of all. Only names this schedule writes are considered.
 */
export function kept(backups: { name: string; at: Date }[], schedule: BackupSchedule): Set<string> {
  const keep = new Set<string>();
  if (backups[0]) keep.add(backups[0].name);
  const newestOf = (period: (at: Date) => string, count: number) => {
    const seen = new Set<string>();
    for (const b of backups) {
      const p = period(b.at);
      if (seen.has(p)) continue;
      if (seen.size >= count) break;
      seen.add(p);
      keep.add(b.name);
    }
  };
  newestOf((at) => at.toISOString().slice(0, 10), schedule.keepDaily);
  newestOf(isoWeek, schedule.keepWeekly);
  return keep;
}

/**
 * One step of the schedule at `now`: a backup into `dir` when the newest is `everyHours` old or there is none, then
 * the backups retention does not keep are removed. Returns what it did, and the backups dated later than `now`.
 *
 * A backup named with a time later than `now` (the clock was once ahead, or the folder came from another machine) is
 * left out of both: counted as the newest it would hold the schedule off until its time had passed, and in retention
 * it would take a day's or a week's place of a good backup. It is left in place, as it may be an operator's.
 */
export async function backupStep(
  target: DatabaseTarget & { receiptsDir: string | null },
  schedule: BackupSchedule,
  meta: { svcVersion: string; now: Date; signal?: AbortSignal },
): Promise<{ taken: string | null; removed: string[]; future: string[] }> {
  fs.mkdirSync(schedule.dir, { recursive: true });
  const notFuture = (b: { at: Date }) => b.at.getTime() <= meta.now.getTime();
  const newest = scheduledBackups(schedule.dir).find(notFuture);
  let taken: string | null = null;
  if (!newest || meta.now.getTime() - newest.at.getTime() >= schedule.everyHours * 3_600_000) {
    taken = scheduledName(meta.now);
    // In the server's process: no memory map (an I/O error on a mapped file would end the server, SIGBUS).
    await takeBackup(target, path.join(schedule.dir, taken), { ...meta, env: {}, memoryMap: false });
  }
  const all = scheduledBackups(schedule.dir);
  const past = all.filter(notFuture);
  const keep = kept(past, schedule);
  const removed = past.filter((b) => !keep.has(b.name)).map((b) => b.name);
  for (const name of removed) fs.rmSync(path.join(schedule.dir, name), { recursive: true, force: true });
  const future = all.filter((b) => !notFuture(b)).map((b) => b.name);
  return { taken, removed, future };
}

/**
 * Why no backup could be written into `dir`, or null: it is a file or a folder this process cannot write, or it is not
 * there yet (the first backup makes it) and the nearest of its parents that is there is one of those. The server
 * refuses to start on it, where its schedule would otherwise fail every minute.
 */
export function backupDirProblem(dir: string): string | null {
  let nearest = path.resolve(dir);
  while (!fs.existsSync(nearest) && path.dirname(nearest) !== nearest) nearest = path.dirname(nearest);
  const made = nearest === path.resolve(dir) ? '' : `, where ${dir} would be made,`;
  if (!fs.statSync(nearest).isDirectory()) return `${nearest}${made} is a file, not a folder`;
  try {
    fs.accessSync(nearest, fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? ` (${String(error.code)})` : '';
    return `${nearest}${made} cannot be written by this process${code}`;
  }
  return null;
}

/**
 * Checks every minute (and at start) whether a scheduled backup is due; started by server.ts. `stop()` (at shutdown)
 * ends a backup under way, its worker threads and pg_dump included, and resolves once it has cleaned up after it.
 */
export function startBackupSchedule(
  target: DatabaseTarget & { receiptsDir: string | null },
  schedule: BackupSchedule,
  log: FastifyBaseLogger,
  svcVersion: string,
): { stop(): Promise<void> } {
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  // Future-dated backups already named in a warning: once per start, not every minute.
  const warned = new Set<string>();
  const step = async () => {
    try {
      const now = new Date(nowMicros() / 1000);
      const { taken, removed, future } = await backupStep(target, schedule, {
        svcVersion,
        now,
        signal: stopping.signal,
      });
      for (const backup of future.filter((name) => !warned.has(name))) {
        warned.add(backup);
        log.warn(
          { dir: schedule.dir, backup, now: now.toISOString() },
          'scheduled backup dated in the future: not counted as the newest nor by retention, and left in place; ' +
            'check the system clock, then rename or remove that folder',
        );
      }
      if (taken || removed.length > 0) log.info({ taken, removed, dir: schedule.dir }, 'scheduled backup');
    } catch (error) {
      if (error instanceof BackupStopped) log.info({ dir: schedule.dir }, 'scheduled backup stopped at shutdown');
      else log.error({ err: error, dir: schedule.dir }, 'scheduled backup failed; will retry');
    } finally {
      running = null;
    }
  };
  const tick = () => {
    if (running === null && !stopping.signal.aborted) running = step();
  };
  tick();
  const timer = setInterval(tick, CHECK_EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
