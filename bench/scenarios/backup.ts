import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, valueItems } from '../lib/api.js';
import {
  checkpoint,
  emptyPg,
  fastest,
  libpq,
  load1,
  pgCopyOut,
  rawCopy,
  run,
  sqlitePath,
  svcAsync,
  timed,
  warm,
} from '../lib/backup-tools.js';
import { database, log, recorder, startBench, type Bench, type Settings } from '../lib/context.js';
import { load, rate, type LoadResult } from '../lib/load.js';
import { writeReport } from '../lib/report.js';

/** Rounds of each pair (floor and svc; quiet and during a backup), alternating: a drift weighs on both sides. */
const ROUNDS = 2;
/** Reads beside a backup: enough connections to keep the server busy, few enough that p99 is not all queueing. */
const READ_CONNECTIONS = 10;
const MB = 1e6;

interface Side {
  seconds: number;
  load: string;
  bytes: number;
}
const mbps = (s: Side) => s.bytes / MB / s.seconds;
const secondsText = (s: Side) =>
  `${(s.bytes / MB).toFixed(s.bytes < 100 * MB ? 1 : 0)} MB in ${s.seconds.toFixed(2)} s, ${s.load}`;

/**
 * (a) `svc backup --out` beside its floor (SQLite: a flushed copy of the checkpointed, quiet database file;
 * PostgreSQL: `COPY … TO STDOUT` of every table into one flushed file, the raw read of the same rows), ROUNDS of each,
 * alternating; the fastest of each side. Both sides' MB/s count the same bytes: the database file (SQLite), the
 * tables' rows as COPY writes them (PostgreSQL; svc's dump is compressed, so its own size would flatter the floor).
 * On PostgreSQL a bare `pg_dump -Fc` of the same database is reported beside them. On SQLite each side starts
 * from the same warm cache (the file read through first, unmeasured) and flushes a new file in the same folder.
 */
async function backups(b: Bench, work: string): Promise<string> {
  const { dialect } = b.settings;
  const floors: Side[] = [];
  const svcs: Side[] = [];
  const dumps: Side[] = [];
  let kept = '';
  for (let i = 0; i < ROUNDS; i++) {
    if (dialect === 'sqlite') {
      const file = sqlitePath(b.dbUrl);
      checkpoint(file);
      await warm(file);
      const copy = path.join(work, `raw-${i}.sqlite`);
      const t = await timed(() => rawCopy(file, copy));
      floors.push({ ...t, bytes: fs.statSync(copy).size });
      fs.rmSync(copy);
    } else {
      const copied = path.join(work, `raw-${i}.copy`);
      const t = await timed(() => pgCopyOut(b.dbUrl, copied));
      floors.push({ ...t, bytes: fs.statSync(copied).size });
      fs.rmSync(copied);
      const dump = path.join(work, `raw-${i}.pgdump`);
      const d = await timed(() => run('pg_dump', ['-Fc', '-f', dump], { env: libpq(b.dbUrl) }));
      dumps.push({ ...d, bytes: floors.at(-1)!.bytes });
      fs.rmSync(dump);
    }
    if (dialect === 'sqlite') await warm(sqlitePath(b.dbUrl));
    const out = path.join(work, `backup-${i}`);
    const t = await timed(() => svcAsync(b.settings.root, ['backup', '--out', out], b.env));
    const own = (JSON.parse(t.value) as { bytes: number }).bytes;
    svcs.push({ ...t, bytes: dialect === 'sqlite' ? own : floors.at(-1)!.bytes });
    if (kept) fs.rmSync(kept, { recursive: true, force: true });
    kept = out;
    log(`backup round ${i + 1}: floor ${secondsText(floors.at(-1)!)}; svc backup ${secondsText(svcs.at(-1)!)}`);
  }
  const floor = fastest(floors);
  const svc = fastest(svcs);
  const floorName = dialect === 'sqlite' ? 'raw file copy' : 'COPY out of every table';
  b.add({
    name: `svc backup --out: ${secondsText(svc)} (floor ${floorName}: ${secondsText(floor)})`,
    unit: 'MB/s',
    throughput: mbps(svc),
    floor: mbps(floor),
    floorName,
    minShare: 0.5,
  });
  if (dumps.length > 0) {
    const dump = fastest(dumps);
    b.add({
      name: `bare pg_dump -Fc of the same database: ${secondsText(dump)}`,
      unit: 'MB/s',
      throughput: mbps(dump),
      floor: mbps(floor),
      floorName,
      reported: true,
    });
  }
  return kept;
}

/** (b) `svc restore --from` into an empty database beside its floor (a raw copy; bare pg_restore). */
async function restores(b: Bench, backupDir: string, work: string): Promise<void> {
  const { dialect } = b.settings;
  const dataFile = path.join(backupDir, dialect === 'sqlite' ? 'data.sqlite' : 'data.pgdump');
  const bytes = fs.statSync(dataFile).size;
  const floors: Side[] = [];
  const svcs: Side[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (dialect === 'sqlite') {
      const copy = path.join(work, `raw-restore-${i}.sqlite`);
      await warm(dataFile);
      floors.push({ ...(await timed(() => rawCopy(dataFile, copy))), bytes });
      fs.rmSync(copy);
      const target = path.join(work, `restored-${i}`, 'svc.sqlite');
      const env = { ...b.env, DATABASE_URL: `sqlite:${target}` };
      await warm(dataFile);
      svcs.push({ ...(await timed(() => svcAsync(b.settings.root, ['restore', '--from', backupDir], env))), bytes });
      fs.rmSync(path.dirname(target), { recursive: true, force: true });
    } else {
      const bare = await emptyPg(b.settings);
      try {
        const args = [
          '--single-transaction',
          '--exit-on-error',
          '--no-owner',
          '-d',
          new URL(bare.url).pathname.slice(1),
        ];
        floors.push({
          ...(await timed(() => run('pg_restore', [...args, dataFile], { env: libpq(bare.url) }))),
          bytes,
        });
      } finally {
        await bare.drop();
      }
      const target = await emptyPg(b.settings);
      try {
        const env = { ...b.env, DATABASE_URL: target.url };
        svcs.push({ ...(await timed(() => svcAsync(b.settings.root, ['restore', '--from', backupDir], env))), bytes });
      } finally {
        await target.drop();
      }
    }
    log(`restore round ${i + 1}: floor ${secondsText(floors.at(-1)!)}; svc restore ${secondsText(svcs.at(-1)!)}`);
  }
  const floorName = dialect === 'sqlite' ? 'raw file copy' : 'pg_restore --single-transaction';
  const svc = fastest(svcs);
  const floor = fastest(floors);
  b.add({
    name: `svc restore --from (into an empty database): ${secondsText(svc)} (floor ${floorName}: ${secondsText(floor)})`,
    unit: 'MB/s',
    throughput: mbps(svc),
    floor: mbps(floor),
    floorName,
    minShare: 0.5,
  });
}

/**
 * (c) get one value (READ_CONNECTIONS connections, the same 1000 values in turn) with no backup running, then while
 * `svc backup` runs (the load stops when the backup's process ends: its start-up is inside), ROUNDS times; each
 * round's p99 beside the quiet p99 just before it (target: ≤ 3×).
 */
async function readsDuringBackup(b: Bench, work: string, valuesUrl: string, ids: string[]): Promise<void> {
  const { bearer } = await b.client();
  const base = new URL(valuesUrl);
  const options = {
    url: `${valuesUrl}/${ids[0]}`,
    headers: { authorization: `Bearer ${bearer}` },
    connections: READ_CONNECTIONS,
    requests: ids.map((id) => ({ path: `${base.pathname}/${id}` })),
  };
  // A warm-up, unmeasured: the first seconds of load on a new token run colder than the rest.
  await load({ ...options, durationSeconds: 2 });
  for (let i = 0; i < ROUNDS; i++) {
    const quietLoad = load1();
    const quiet: LoadResult = await load({ ...options, durationSeconds: b.settings.duration });
    const during = await timed(async () => {
      const backup = svcAsync(b.settings.root, ['backup', '--out', path.join(work, `during-${i}`)], b.env);
      const reads = await load({ ...options, until: backup });
      await backup;
      return reads;
    });
    fs.rmSync(path.join(work, `during-${i}`), { recursive: true, force: true });
    b.add({
      name: `get one value, no backup running (${READ_CONNECTIONS} connections, ${b.settings.duration} s, round ${i + 1}, load ${quietLoad})`,
      unit: 'req/s',
      ...rate(quiet),
      reported: true,
    });
    b.add({
      name: `get one value while svc backup runs (${during.seconds.toFixed(1)} s, round ${i + 1}, ${during.load})`,
      unit: 'req/s',
      ...rate(during.value),
      floor: quiet.rps,
      floorName: 'no backup',
      floorP99: quiet.p99,
      maxP99Times: 3,
    });
  }
}

/**
 * `npm run bench -- --backup [--db postgres] [--quick] [--no-docs]` (issue 35): a database of `settings.records`
 * records (`svc seed`) and 1000 values, served by the real server (one process); then (a) `svc backup` beside a
 * raw copy of the quiet file (SQLite) or COPY out of every table (PostgreSQL), (b) `svc restore` into an empty
 * database beside a raw copy or a bare `pg_restore --single-transaction`, (c) reads while a backup runs beside
 * reads with none. Each figure carries the load average at its start and end. Writes
 * bench/results/<date>-<db>-backup.json|md and the `<db>-backup` block of docs/performance.md (not with docs false).
 */
export async function backupBench(settings: Settings, docs: boolean): Promise<void> {
  const rec = recorder();
  const db = await database(settings);
  const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '0', TOKEN_RATE_LIMIT_MAX: '0', LOG_LEVEL: 'warn', WORKERS: '1' };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-backup-'));
  let databaseMb: number | undefined;
  try {
    const b = await startBench(settings, db.url, env, rec);
    try {
      const { bearer } = await b.client();
      const field = await call<{ svc_id: string }>(`${b.server.url}/v1/fields`, {
        method: 'POST',
        token: bearer,
        body: { name: 'GL Account', group: 'ACCOUNTING' },
        headers: { 'idempotency-key': randomUUID() },
      });
      const valuesUrl = `${b.server.url}/v1/fields/${field.svc_id}/values`;
      await call(valuesUrl, {
        method: 'POST',
        token: bearer,
        body: { items: valueItems(0) },
        headers: { 'idempotency-key': randomUUID() },
      });
      const listed = await call<{ items: { svc_id: string }[] }>(`${valuesUrl}?limit=1000`, { token: bearer });
      const seeded = await timed(async () =>
        b.svc([
          'seed',
          '--account',
          'bench',
          '--records',
          String(settings.records),
          '--values',
          '200',
          '--into-existing',
        ]),
      );
      log(`svc seed of ${settings.records} records: ${seeded.seconds.toFixed(1)} s (${seeded.load})`);
      const kept = await backups(b, work);
      databaseMb =
        (JSON.parse(fs.readFileSync(path.join(kept, 'manifest.json'), 'utf8')) as { bytes: number }).bytes / MB;
      await restores(b, kept, work);
      await readsDuringBackup(
        b,
        work,
        valuesUrl,
        listed.items.map((v) => v.svc_id),
      );
    } finally {
      await b.stop();
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    await db.drop();
  }
  const sizes = { records: settings.records, 'backup MB': Math.round(databaseMb ?? 0) };
  const files = writeReport(settings.root, settings.dialect, sizes, rec.scenarios, docs, 'backup');
  log(`wrote ${files.join(', ')}`);
}
