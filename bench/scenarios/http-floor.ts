import path from 'node:path';
import type { Recorder, Settings } from '../lib/context.js';
import { load, rate, type LoadResult } from '../lib/load.js';
import { serve } from '../lib/processes.js';

/** The HTTP floor: a bare Fastify route (bench/floor-server.ts) under the same load as the request rates. */
export async function httpFloor(settings: Settings, rec: Recorder): Promise<LoadResult> {
  const floorServer = await serve(
    ['--import', 'tsx', path.join(settings.root, 'bench/floor-server.ts')],
    { WORKERS: '1' },
    settings.port + 1,
    '/',
  );
  const floorLoad = await load({ url: `${floorServer.url}/`, durationSeconds: settings.duration });
  await floorServer.stop();
  rec.add({ name: 'floor: bare Fastify GET', unit: 'req/s', ...rate(floorLoad) });
  return floorLoad;
}
