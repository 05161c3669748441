import { call } from '../lib/api.js';
import type { Bench, Client } from '../lib/context.js';
import { load, rate } from '../lib/load.js';
import { bulkMoveFloor, codingFloor } from '../lib/review-floor.js';
import type { Seeded } from './seed.js';

/**
 * The review workflow: coding one record per request, and moving 1000 records per request, each beside its
 * service floor (the same service work in this process, without HTTP) on other records of the same database.
 */
export async function reviewScenarios(b: Bench, client: Client, seeded: Seeded): Promise<void> {
  const { quick } = b.settings;
  const internal = `${b.server.url}/internal/v1`;
  const gl = seeded.fields.find((f) => f.name.startsWith('Demo GL Account'))!;
  const glValues: { items: { svc_id: string }[] } = await call(
    `${b.server.url}/v1/fields/${gl.svc_id}/values?limit=50`,
    {
      token: client.bearer,
    },
  );
  const codings = quick ? 200 : 2000;
  const moveBatches = quick ? 2 : 20;
  const underReview: { id: string; version: number; line: string }[] = [];
  let sc: string | null = null;
  do {
    const page: {
      items: { id: string; version: number; line_items: { id: string }[] }[];
      next_cursor: string | null;
    } = await call(
      `${internal}/accounting/records?review_status=REVIEW&single_entry=true&limit=500${sc ? `&cursor=${sc}` : ''}`,
      {
        token: client.bearer,
      },
    );
    underReview.push(...page.items.map((r) => ({ id: r.id, version: r.version, line: r.line_items[0]!.id })));
    sc = underReview.length >= 2 * codings + 2 * moveBatches * 1000 ? null : page.next_cursor;
  } while (sc);
  const codingOf = (r: { id: string; version: number; line: string }, n: number) => ({
    id: r.id,
    input: {
      version: r.version,
      lines: [
        {
          line_id: r.line,
          field_values: [{ field_id: gl.svc_id, svc_id: glValues.items[n % glValues.items.length]!.svc_id }],
        },
      ],
    },
  });
  const codeHttp = underReview.slice(0, codings).map(codingOf);
  const codeFloor = underReview.slice(codings, 2 * codings).map(codingOf);
  let codeN = 0;
  const codeLoad = await load({
    url: `${internal}/accounting/records/x/coding`,
    method: 'POST',
    headers: client.auth,
    connections: 4,
    amount: codeHttp.length,
    setupRequest: (request) => {
      const edit = codeHttp[codeN++ % codeHttp.length]!;
      return {
        ...request,
        path: `/internal/v1/accounting/records/${edit.id}/coding`,
        body: JSON.stringify(edit.input),
      };
    },
  });
  const codeFloorRate = await codingFloor(b.dbUrl, 'bench', codeFloor);
  b.add({ name: 'floor: code one record (service work, no HTTP)', unit: 'records/s', throughput: codeFloorRate });
  b.add({
    name: 'code one record per request',
    unit: 'records/s',
    ...rate(codeLoad),
    floor: codeFloorRate,
    floorName: 'service',
  });

  const moving = underReview.slice(2 * codings).map((r) => ({ id: r.id }));
  const batchesOf = (from: number) =>
    Array.from({ length: moveBatches }, (_, n) => ({
      review_status: 'READY_FOR_EXPORT' as const,
      records: moving.slice(from + n * 1000, from + n * 1000 + 1000),
    })).filter((batch) => batch.records.length === 1000);
  const moveHttp = batchesOf(0);
  const moveFloor = batchesOf(moveBatches * 1000);
  let moveN = 0;
  const moveLoad = await load({
    url: `${internal}/accounting/records/review-status`,
    method: 'POST',
    headers: client.auth,
    connections: 2,
    amount: moveHttp.length,
    setupRequest: (request) => ({ ...request, body: JSON.stringify(moveHttp[moveN++ % moveHttp.length]) }),
  });
  const moveFloorRate = await bulkMoveFloor(b.dbUrl, 'bench', moveFloor);
  b.add({ name: 'floor: move 1000 records (service work, no HTTP)', unit: 'records/s', throughput: moveFloorRate });
  b.add({
    name: 'move 1000 records per request',
    unit: 'records/s',
    ...rate(moveLoad, 1000),
    floor: moveFloorRate,
    floorName: 'service',
  });
}
