import path from 'node:path';
import type { Bench } from './context.js';
import { combine, load, type LoadOptions, type LoadResult } from './load.js';
import { serve, type Served } from './processes.js';

/**
 * The data floors of single-row requests (issue 34; bench/data-floor-server.ts): bare Fastify routes reading one field
 * value by primary key, and issuing a token (its row committed in groups), through the same driver, with as many
 * connections as svc, on the same database. `alternate` loads one and svc's own route in alternating slices (svc,
 * floor; floor, svc; …) with the same autocannon connections, so that a drift of the machine's speed falls on both
 * alike. Both are up all along. `fieldId` names the field of the bench's account whose values the point read reads.
 */
export function floorServer(b: Bench, fieldId = ''): Promise<Served> {
  return serve(
    ['--import', 'tsx', path.join(b.settings.root, 'bench/data-floor-server.ts')],
    {
      DATABASE_URL: b.dbUrl,
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      PRAGMAS: JSON.stringify(b.pragmas()),
      ACCOUNT: 'bench',
      FIELD: fieldId,
    },
    b.settings.port + 3,
  );
}

/** svc's pool of PostgreSQL connections (DATABASE_POOL_SIZE's default; the bench leaves it unset), the floors' too. */
export const POOL_SIZE = 10;

/** The floors' connections, as a scenario's name says them. */
export const floorConnections = (b: Bench) =>
  b.settings.dialect === 'sqlite' ? 'its one connection' : `a pool of ${POOL_SIZE}`;

/** svc's load and the floor's, in `slices` alternating pairs of `seconds` each in all; each side combined. */
export async function alternate(
  seconds: number,
  slices: number,
  svc: Omit<LoadOptions, 'durationSeconds'>,
  floor: Omit<LoadOptions, 'durationSeconds'>,
): Promise<{ svc: LoadResult; floor: LoadResult }> {
  const runs = { svc: [] as LoadResult[], floor: [] as LoadResult[] };
  const each = seconds / slices;
  for (let i = 0; i < slices; i++) {
    const order = i % 2 === 0 ? (['svc', 'floor'] as const) : (['floor', 'svc'] as const);
    for (const side of order) {
      runs[side].push(await load({ ...(side === 'svc' ? svc : floor), durationSeconds: each }));
    }
  }
  return { svc: combine(runs.svc), floor: combine(runs.floor) };
}
