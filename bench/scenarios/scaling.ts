import os from 'node:os';
import path from 'node:path';
import { ALL_SCOPES, database, log, svc, type Credentials, type Settings } from '../lib/context.js';
import { combine, load, type LoadResult } from '../lib/load.js';
import { serve, type Served } from '../lib/processes.js';
import { writeScalingReport } from '../lib/report.js';
import {
  coresText,
  cpuList,
  ratioLine,
  scalingRatio,
  scalingVerdict,
  sideLine,
  workersText,
  type Pass,
  type ScalingRow,
  type Side,
} from '../lib/scaling.js';
import { allowedCpus, floorWorker, svcWorker, waitForWorkers } from '../lib/workers.js';
import { prepare, rows, type Row } from './scaling-rows.js';

const sideOf = (r: LoadResult): Side => ({ rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors + r.non2xx });

/**
 * Both worker counts of one row, in alternating slices of the same total time (the order swapped every slice),
 * after a short warm-up of each: a change in the machine's speed during the row weighs on both alike.
 */
async function measure(row: Row, one: Served, many: Served, duration: number): Promise<{ one: Side; many: Side }> {
  const warm = Math.min(1, duration / 5);
  for (const server of [one, many]) await load({ ...row.load(server.url), durationSeconds: warm });
  const slices = Math.max(1, Math.round(duration / 2));
  const runs = new Map<Served, LoadResult[]>([
    [one, []],
    [many, []],
  ]);
  for (let i = 0; i < slices; i++) {
    for (const server of i % 2 === 0 ? [one, many] : [many, one]) {
      runs.get(server)!.push(await load({ ...row.load(server.url), durationSeconds: duration / slices }));
    }
  }
  return { one: sideOf(combine(runs.get(one)!)), many: sideOf(combine(runs.get(many)!)) };
}

/**
 * `npm run bench -- --scaling` (issue 15): the read scenarios and a mixed load on svc at WORKERS=1 and
 * WORKERS=os.availableParallelism(), beside a bare Fastify floor under node:cluster at the same counts; each row's
 * ratio N ÷ 1 beside the floor's. Once with the server pinned (taskset) to 1 core and to N cores, once unpinned.
 */
export async function scaling(settings: Settings): Promise<void> {
  const workers = os.availableParallelism();
  if (workers < 2) throw new Error('--scaling needs at least 2 cores (os.availableParallelism())');
  const pg = settings.dialect === 'postgres';
  const cpus = allowedCpus();
  const passes: { name: string; pin: { one: number[]; many: number[] } | null; cores: string }[] = [];
  if (cpus && cpus.length >= workers) {
    const pin = { one: cpus.slice(0, 1), many: cpus.slice(0, workers) };
    passes.push({
      name: 'pinned',
      pin,
      cores: `The server (svc or the floor, its primary and workers) pinned with taskset: 1 worker to ${coresText(pin.one)}, ${workersText(workers)} to ${coresText(pin.many)}; the load generator (autocannon, in the bench's process) not pinned, on any of the ${cpus.length} cores beside the server${pg ? '; PostgreSQL not pinned' : ''}`,
    });
  } else {
    log(
      `scaling: ${cpus ? `taskset allows ${cpus.length} cpus, fewer than ${workers}` : 'taskset (util-linux) not found'}: the pinned pass is left out`,
    );
  }
  passes.push({
    name: 'unpinned',
    pin: null,
    cores: `Nothing pinned: the server${pg ? ', the load generator and PostgreSQL' : ' and the load generator'} share the machine's cores as the scheduler decides`,
  });
  log(
    `scaling: WORKERS=1 against WORKERS=${workers} (os.availableParallelism()), each beside a bare Fastify floor under node:cluster with the same workers. The load generator shares the machine: with ${workers} workers it takes part of the cores they would have, for the floor as for svc, so read the service's ratio beside the floor's (a floor near or under 1× had no core to spare)`,
  );

  const db = await database(settings);
  const env = { DATABASE_URL: db.url, RATE_LIMIT_MAX: '0', TOKEN_RATE_LIMIT_MAX: '0', LOG_LEVEL: 'warn' };
  const done: Pass[] = [];
  try {
    const creds = JSON.parse(
      svc(settings.root, ['clients', 'create', '--account', 'bench', '--scopes', ALL_SCOPES], env),
    ) as Credentials;
    const data = await prepare(settings, env, creds);
    const measured = rows(data);
    log(`scaling: ${settings.values} values and ${settings.records} records in the database`);
    for (const pass of passes) {
      log(`scaling, ${pass.name}: ${pass.cores}`);
      done.push({
        name: pass.name,
        cores: pass.cores,
        rows: await runPass(settings, env, measured, workers, pass.pin),
      });
    }
  } finally {
    await db.drop();
  }
  const sizes = { values: settings.values, records: settings.records, duration: settings.duration };
  const files = writeScalingReport(settings.root, settings.dialect, sizes, workers, done);
  log(`wrote ${files.join(', ')}`);
}

async function runPass(
  settings: Settings,
  env: Record<string, string>,
  measured: Row[],
  workers: number,
  pin: { one: number[]; many: number[] } | null,
): Promise<ScalingRow[]> {
  const where = (n: number) => `${workersText(n)}${pin ? ` (${coresText(n === 1 ? pin.one : pin.many)})` : ''}`;
  const start = async (on: Row['on'], n: number, port: number): Promise<Served> => {
    const prefix = pin ? ['taskset', '-c', cpuList(n === 1 ? pin.one : pin.many)] : [];
    if (on === 'svc') {
      const server = await serve(
        [path.join(settings.root, 'dist/server.js')],
        { ...env, WORKERS: String(n) },
        port,
        '/healthz',
        prefix,
      );
      await waitForWorkers(`${server.url}/healthz`, n, svcWorker);
      return server;
    }
    const floor = path.join(settings.root, 'bench/floor-server.ts');
    const server = await serve(['--import', 'tsx', floor], { WORKERS: String(n) }, port, '/', prefix);
    if (n > 1) await waitForWorkers(`${server.url}/pid`, n, floorWorker);
    return server;
  };
  // All four sets run for the whole pass (idle when not measured), so that the rows can alternate them.
  const servers = {
    floor: {
      one: await start('floor', 1, settings.port + 11),
      many: await start('floor', workers, settings.port + 12),
    },
    svc: { one: await start('svc', 1, settings.port + 13), many: await start('svc', workers, settings.port + 14) },
  };
  try {
    const out: ScalingRow[] = [];
    let floorRatio: number | undefined;
    for (const row of measured) {
      const set = servers[row.on];
      const m = await measure(row, set.one, set.many, settings.duration);
      log(sideLine(row.name, where(1), row.unit, m.one));
      log(sideLine(row.name, where(workers), row.unit, m.many));
      const ratio = scalingRatio(m.one.rps, m.many.rps);
      const result: ScalingRow =
        row.on === 'floor'
          ? { name: row.name, unit: row.unit, ...m, ratio, verdict: '' }
          : {
              name: row.name,
              unit: row.unit,
              ...m,
              ratio,
              floorRatio,
              verdict: scalingVerdict(ratio, floorRatio!, workers),
            };
      if (row.on === 'floor') floorRatio = ratio;
      log(ratioLine(result, workers));
      out.push(result);
    }
    return out;
  } finally {
    for (const set of Object.values(servers)) {
      await set.one.stop();
      await set.many.stop();
    }
  }
}
