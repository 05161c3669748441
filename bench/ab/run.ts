/**
 * `npm run bench:ab -- --piece <piece> --scenario <name>[,<name>] [--db postgres] [--pairs 6] [--seconds 2]
 * [--size 100000]`: piece off (A) against every piece on (B), in interleaved pairs (A B, B A, A B…) in one run: two
 * servers up at once on the same database, measured in turn in short slices (the pieces: src/speed/switches.ts;
 * SVC_SPEED_OFF). A scenario whose effect is the state a load leaves (planner statistics) gives each side a database
 * of its own instead, loaded by that side's server.
 * `npm run bench:ab -- --base <checkout> --scenario …`: the same, with A the server built in another checkout (today's
 * main, say) and B this one: the before-and-after of a change, measured the same way (`--b-off <piece>`: B with
 * that piece off, the after of removing it).
 *
 * Only interleaved pairs of the same run count: this machine's speed moves several-fold within a day, and other
 * work shares its two cores. Each pair's ratio B ÷ A is printed, and the median of the ratios is the gain.
 * Results go to bench/results/<date>-<db>-ab-<what>.json; docs/performance.md is not touched.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Served } from '../lib/processes.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { token } from '../lib/api.js';
import { ALL_SCOPES, database, log, svc, type Credentials, type Settings } from '../lib/context.js';
import { serve } from '../lib/processes.js';
import { SCENARIOS, type Measured, type Side } from './scenarios.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    piece: { type: 'string' },
    base: { type: 'string' },
    'b-off': { type: 'string' },
    scenario: { type: 'string' },
    pairs: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '2' },
    size: { type: 'string', default: '100000' },
    'no-build': { type: 'boolean', default: false },
    'pg-url': {
      type: 'string',
      default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const settings: Settings = {
  root,
  port: 19_000 + Math.floor(Math.random() * 1000),
  dialect: args.db === 'postgres' ? 'postgres' : 'sqlite',
  pgUrl: args['pg-url']!,
  quick: false,
  values: 0,
  records: 0,
  duration: 0,
};
const pairs = Number(args.pairs);
const seconds = Number(args.seconds);
const size = Number(args.size);
const names = (args.scenario ?? '').split(',').filter(Boolean);
if ((!args.piece && !args.base) || names.length === 0 || names.some((n) => !SCENARIOS[n])) {
  throw new Error(`usage: --piece P | --base DIR, --scenario one of ${Object.keys(SCENARIOS).join(', ')}`);
}
const what = args.piece ?? 'base';
const sides = {
  A: { server: path.join(args.base ?? root, 'dist/server.js'), off: args.piece ?? '' },
  B: { server: path.join(root, 'dist/server.js'), off: args['b-off'] ?? '' },
};

/** CPU seconds (user + system) the process has used, from /proc (clock ticks of 1/100 s). */
function cpuSeconds(server: Served): number {
  const fields = fs.readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  if (!args['no-build']) execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const rows: { scenario: string; unit: string; a: number[]; b: number[] }[] = [];
  for (const name of names) {
    const scenario = SCENARIOS[name]!;
    const db = await database(settings);
    const env = {
      DATABASE_URL: db.url,
      RATE_LIMIT_MAX: '0',
      TOKEN_RATE_LIMIT_MAX: '0',
      LOG_LEVEL: 'warn',
      WORKERS: '1',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    try {
      const creds = JSON.parse(
        svc(root, ['clients', 'create', '--account', 'bench', '--scopes', ALL_SCOPES], env),
      ) as Credentials;
      let run = 0;
      const start = async (
        side: { server: string; off: string },
        port: number,
        own?: { url: string; creds: Credentials },
      ) => {
        const server = await serve(
          [side.server],
          { ...env, ...(own ? { DATABASE_URL: own.url } : {}), SVC_SPEED_OFF: side.off },
          port,
        );
        const c = own?.creds ?? creds;
        const bearer = await token(server.url, c.client_id, c.client_secret);
        const auth = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
        // Each measurement is a run of its own (keys and names made per run stay distinct).
        const at = (): Side => ({ url: server.url, auth, run: run++ });
        return { server, at };
      };
      const ownDatabase = async <T>(work: (own: { url: string; creds: Credentials }) => Promise<T>) => {
        const own = await database(settings);
        try {
          const ownEnv = { ...env, DATABASE_URL: own.url };
          const ownCreds = JSON.parse(
            svc(root, ['clients', 'create', '--account', 'bench', '--scopes', ALL_SCOPES], ownEnv),
          ) as Credentials;
          return await work({ url: own.url, creds: ownCreds });
        } finally {
          await own.drop();
        }
      };
      const row = {
        scenario: name,
        unit: scenario.unit,
        a: [] as number[],
        b: [] as number[],
        cpuA: [] as number[],
        cpuB: [] as number[],
      };
      /** A measurement, with the server's CPU µs per unit when known (two servers up, each measured alone). */
      const record = (key: 'A' | 'B', p: number, m: Measured, cpu?: number, note = '') => {
        (key === 'A' ? row.a : row.b).push(m.figure);
        const perUnit = cpu === undefined ? undefined : (cpu * 1e6) / m.units;
        if (perUnit !== undefined) (key === 'A' ? row.cpuA : row.cpuB).push(perUnit);
        const cpuText = perUnit === undefined ? '' : `, server CPU ${perUnit.toFixed(1)} µs a unit`;
        log(
          `${name} pair ${p + 1} ${key}${key === 'A' ? ` (${what} off)` : ''}: ${m.figure.toFixed(0)} ${scenario.unit}${cpuText}${note}`,
        );
      };
      // Pairs in the order A B, B A, A B…: neither side always goes first.
      const orderOf = (p: number) => (p % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const));
      if (scenario.perSide) {
        for (let p = 0; p < pairs; p++) {
          for (const key of orderOf(p)) {
            const figure = await ownDatabase(async (own) => {
              const { server, at } = await start(sides[key], settings.port, own);
              try {
                const ownSvc = (argv: string[]) => svc(root, argv, { ...env, DATABASE_URL: own.url });
                const mine = await scenario.setup(at(), size, ownSvc);
                await new Promise((resolve) => setTimeout(resolve, scenario.perSide!.settleSeconds * 1000));
                return await scenario.measure(at(), mine, seconds);
              } finally {
                await server.stop();
              }
            });
            record(key, p, figure, undefined, ' (a database of its own)');
          }
        }
      } else if (scenario.alone) {
        // One server at a time (its background work would serve the other's slices): each slice starts its side's
        // server, measures, stops it; the data made once through B alone.
        const setup = await start(sides.B, settings.port);
        let made: Record<string, unknown>;
        try {
          made = await scenario.setup(setup.at(), size, (argv) => svc(root, argv, env));
        } finally {
          await setup.server.stop();
        }
        for (let p = 0; p < pairs; p++) {
          for (const key of orderOf(p)) {
            const { server, at } = await start(sides[key], settings.port);
            try {
              await scenario.warm?.(at(), made);
              const before = cpuSeconds(server);
              const m = await scenario.measure(at(), made, seconds);
              record(key, p, m, cpuSeconds(server) - before);
            } finally {
              await server.stop();
            }
          }
        }
        await (made.receiver as { close?: () => Promise<void> } | undefined)?.close?.();
      } else {
        // Both servers up at once on the same database, measured in turn in short slices: a drift of the machine's
        // speed (other work on its two cores) falls on both sides of a pair alike.
        // The data is made through a server of its own, stopped before the two start: neither side carries the
        // setup's heap and warmed code into its slices.
        const setup = await start(sides.B, settings.port + 2);
        let made: Record<string, unknown>;
        try {
          made = {
            ...(await scenario.setup(setup.at(), size, (argv) => svc(root, argv, env))),
            creds: Buffer.from(`${creds.client_id}:${creds.client_secret}`).toString('base64'),
          };
        } finally {
          await setup.server.stop();
        }
        const servers = { A: await start(sides.A, settings.port), B: await start(sides.B, settings.port + 1) };
        try {
          if (scenario.warmup) {
            for (const key of ['A', 'B'] as const) await scenario.measure(servers[key].at(), made, 1);
          }
          for (let p = 0; p < pairs; p++) {
            for (const key of orderOf(p)) {
              const before = cpuSeconds(servers[key].server);
              const m = await scenario.measure(servers[key].at(), made, seconds);
              record(key, p, m, cpuSeconds(servers[key].server) - before);
            }
          }
          await (made.receiver as { close?: () => Promise<void> } | undefined)?.close?.();
        } finally {
          await servers.A.server.stop();
          await servers.B.server.stop();
        }
      }
      rows.push(row);
      const ratios = row.a.map((a, i) => row.b[i]! / a);
      const cpuRatios = row.cpuA.map((a, i) => a / row.cpuB[i]!);
      log(
        `${name}: A ${median(row.a).toFixed(0)}, B ${median(row.b).toFixed(0)} ${row.unit}; B ÷ A per pair ${ratios.map((r) => r.toFixed(2)).join(', ')}; median ${median(ratios).toFixed(2)}`,
      );
      if (cpuRatios.length > 0) {
        log(
          `${name}: server CPU a unit, A ${median(row.cpuA).toFixed(1)} µs, B ${median(row.cpuB).toFixed(1)} µs; A ÷ B per pair ${cpuRatios.map((r) => r.toFixed(2)).join(', ')}; median ${median(cpuRatios).toFixed(2)}`,
        );
      }
    } finally {
      await db.drop();
    }
  }
  const file = path.join(
    root,
    'bench/results',
    `${new Date().toISOString().replace(/[:.]/g, '-')}-${settings.dialect}-ab-${what}.json`,
  );
  fs.writeFileSync(file, JSON.stringify({ what, base: args.base ?? null, pairs, seconds, size, rows }, null, 2));
  log(`wrote ${file}`);
}

await main();
