import type { Bench } from '../lib/context.js';
import { consoleFirstLoadKb } from '../lib/console-load.js';

/** The demo fields `svc seed` made (the review scenarios code records with the GL account's values). */
export interface Seeded {
  fields: { svc_id: string; name: string }[];
}

/**
 * `svc seed` of the records, then the server restarted on the migrated database: its start-up, and the console's
 * first load (the JavaScript that /console/'s page loads, gzipped).
 */
export async function seedAndRestart(b: Bench): Promise<Seeded> {
  const RECORDS = b.settings.records;
  const seedStart = performance.now();
  const seeded = JSON.parse(
    // The account holds the value scenarios' field already: the demo fields are made beside it.
    b.svc(['seed', '--account', 'bench', '--records', String(RECORDS), '--values', '200', '--into-existing']),
  ) as Seeded;
  const seedSeconds = (performance.now() - seedStart) / 1000;
  b.add({
    name: `svc seed of ${RECORDS} records`,
    unit: 's',
    throughput: seedSeconds,
    targetMax: RECORDS >= 1_000_000 ? 180 : undefined,
  });

  await b.restart();
  b.add({ name: 'start-up on the migrated database', unit: 'ms', throughput: b.server.startupMs, targetMax: 1000 });
  const firstLoad = await consoleFirstLoadKb(b.server.url);
  b.add({
    name: `console first load: JavaScript, gzipped (${firstLoad.files} file${firstLoad.files === 1 ? '' : 's'})`,
    unit: 'kB',
    throughput: firstLoad.kb,
    targetMax: 250,
  });
  return seeded;
}
