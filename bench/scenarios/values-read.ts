import { call } from '../lib/api.js';
import type { Bench, Client } from '../lib/context.js';
import { readFloor } from '../lib/data-floor.js';
import { combine, load, rate, type LoadResult } from '../lib/load.js';
import { alternate, floorConnections, floorServer } from '../lib/point-floor.js';
import type { ValuesField } from './values-write.js';

const dataFloor = { floorName: 'data' } as const;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * Reads of the field's values: get one value (50 connections) against its data floor (a bare route reading one
 * value by primary key; answered for the token scenario) and the HTTP floor, the first page of 100,
 * the first page of 1000 and a page 90% deep against their data floors, and the coding pickers' search.
 */
export async function readValues(
  b: Bench,
  client: Client,
  field: ValuesField,
  floorLoad: LoadResult,
): Promise<LoadResult> {
  const { values: VALUES, duration: DURATION } = b.settings;
  const { fieldId, valuesUrl } = field;
  const firstPage = await call(`${valuesUrl}?limit=1000`, { token: client.bearer });
  const sample: string[] = firstPage.items.map((v: { svc_id: string }) => v.svc_id);
  // A cursor 90% into the list, reached by walking it as a client would.
  let cursor: string | null = null;
  const depth = Math.floor((VALUES * 0.9) / 1000);
  for (let i = 0; i < depth; i++) {
    const page: { next_cursor: string | null } = await call(
      `${valuesUrl}?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
      { token: client.bearer },
    );
    cursor = page.next_cursor;
  }
  // The get is the first request of its token on that server: its SQL includes the token's grant lookup, which
  // the measured server mostly answers from memory (docs/design.md).
  const valueCaptures = await b.capturing(async (c, headers) => ({
    get: await c.request(`/v1/fields/${fieldId}/values/${sample[0]}`, { headers }),
    first: await c.request(`/v1/fields/${fieldId}/values?limit=1000`, { headers }),
    deep: await c.request(`/v1/fields/${fieldId}/values?limit=1000&cursor=${cursor}`, { headers }),
  }));
  b.statementsOf('get one value', valueCaptures.get);
  b.statementsOf('list 1000 values', valueCaptures.first);
  // Get one value and its data floor (issue 34: a bare route reading one value by primary key through the same
  // driver and as many connections), in alternating slices with the same 50 connections over the same values.
  const pointFloor = await floorServer(b, fieldId);
  let gets: { svc: LoadResult; floor: LoadResult };
  try {
    gets = await alternate(
      DURATION,
      // At least two pairs of slices (a quick run's one pair read the floor under svc at load 14).
      Math.max(2, Math.round(DURATION / 2.5)),
      {
        url: `${valuesUrl}/${sample[0]}`,
        headers: client.auth,
        requests: sample.map((id) => ({ path: `/v1/fields/${fieldId}/values/${id}` })),
      },
      { url: `${pointFloor.url}/values/${sample[0]}`, requests: sample.map((id) => ({ path: `/values/${id}` })) },
    );
  } finally {
    await pointFloor.stop();
  }
  const pointLoad = gets.floor;
  const getFloor = await b.onRaw((raw) => readFloor(raw, [valueCaptures.get], DURATION / 2));
  b.add({
    name: "floor: get one value's SQL (grant lookup included) and JSON, one at a time",
    unit: 'req/s',
    throughput: getFloor,
  });
  b.add({
    name: `floor: bare Fastify GET reading one value by primary key, same driver, ${floorConnections(b)} (50 connections)`,
    unit: 'req/s',
    ...rate(gets.floor),
  });
  b.add({
    name: 'get one value (50 connections)',
    unit: 'req/s',
    ...rate(gets.svc),
    floor: gets.floor.rps,
    floorName: 'point read',
    floorP99: gets.floor.p99,
    minShare: 0.6,
    maxP99Times: 3,
  });
  b.add({
    name: 'get one value against the HTTP floor',
    unit: 'req/s',
    ...rate(gets.svc),
    floor: floorLoad.rps,
  });

  const list100 = await load({
    url: `${valuesUrl}?limit=100`,
    headers: client.auth,
    durationSeconds: DURATION,
    connections: 10,
  });
  b.add({ name: 'list values, limit 100, first page', unit: 'pages/s', ...rate(list100), floor: floorLoad.rps });
  // The first and the deep page in alternating slices of the same total time, so that a change in the
  // machine's speed during the run (this one varies by half within an hour) weighs on both alike.
  const slices = Math.max(1, Math.round(DURATION / 2));
  const first: LoadResult[] = [];
  const deepRuns: LoadResult[] = [];
  for (let i = 0; i < slices; i++) {
    first.push(
      await load({
        url: `${valuesUrl}?limit=1000`,
        headers: client.auth,
        durationSeconds: DURATION / slices,
        connections: 10,
      }),
    );
    deepRuns.push(
      await load({
        url: `${valuesUrl}?limit=1000&cursor=${cursor}`,
        headers: client.auth,
        durationSeconds: DURATION / slices,
        connections: 10,
      }),
    );
  }
  // Their data floors, alternating too.
  const firstFloor: number[] = [];
  const deepFloor: number[] = [];
  await b.onRaw(async (raw) => {
    for (let i = 0; i < 2; i++) {
      firstFloor.push(await readFloor(raw, [valueCaptures.first], DURATION / 8));
      deepFloor.push(await readFloor(raw, [valueCaptures.deep], DURATION / 8));
    }
  });
  b.add({
    name: 'list values, limit 1000, first page',
    unit: 'pages/s',
    ...rate(combine(first)),
    floor: mean(firstFloor),
    ...dataFloor,
    maxTimes: 2,
  });
  b.add({
    name: `list values, limit 1000, page at depth ${depth * 1000}`,
    unit: 'pages/s',
    ...rate(combine(deepRuns)),
    floor: mean(deepFloor),
    ...dataFloor,
    maxTimes: 2,
  });

  // The coding pickers' search over the whole field: text in one value of all (the trigram index's case), and
  // text at the start of many (a prefix).
  const searchUrl = `${b.server.url}/internal/v1/fields/${fieldId}/values/search`;
  const rare = `ount ${Math.floor(VALUES * 0.7)}`;
  for (const [name, q] of [
    [`search values: "${rare}" (contained in 1 of ${VALUES})`, rare],
    ['search values: "Account 1" (the start of many)', 'Account 1'],
  ] as const) {
    const r = await load({
      url: `${searchUrl}?q=${encodeURIComponent(q)}&limit=20`,
      headers: client.auth,
      durationSeconds: DURATION / 2,
      connections: 4,
    });
    b.add({ name, unit: 'req/s', ...rate(r), floor: floorLoad.rps });
  }
  return pointLoad;
}
