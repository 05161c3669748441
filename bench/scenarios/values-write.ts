import { randomUUID } from 'node:crypto';
import { newId } from '../../src/lib/ids.js';
import { nowMicros } from '../../src/lib/clock.js';
import { call, valueBatches, valueItems } from '../lib/api.js';
import type { Bench, Client } from '../lib/context.js';
import { insertFloor } from '../lib/data-floor.js';
import { load, rate } from '../lib/load.js';

/** The field the value scenarios work on. */
export interface ValuesField {
  fieldId: string;
  /** `<server>/v1/fields/<id>/values` */
  valuesUrl: string;
}

const dataFloor = { floorName: 'data' } as const;

/**
 * The insert floor, then creates of 1000 values per request until `values` exist in one field. The floor is the
 * create request's own INSERT statements (captured from one create of 1000 values into a field of its own), run
 * on new rows of that field through the bare driver, 1000 per transaction, with the server's pragmas
 * (synchronous = FULL...).
 */
export async function createValues(b: Bench, client: Client): Promise<ValuesField> {
  const { quick, values: VALUES } = b.settings;
  const field = await call(`${b.server.url}/v1/fields`, {
    method: 'POST',
    token: client.bearer,
    body: { name: 'GL Account', group: 'ACCOUNTING' },
    headers: { 'idempotency-key': randomUUID() },
  });
  const valuesUrl = `${b.server.url}/v1/fields/${field.svc_id}/values`;

  const createCapture = await b.capturing(async (c, headers) => {
    const floorField = (
      await c.request('/v1/fields', {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': randomUUID() },
        body: JSON.stringify({ name: 'Insert floor', group: 'ACCOUNTING' }),
      })
    ).answer as { svc_id: string };
    const created = await c.request(`/v1/fields/${floorField.svc_id}/values`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ items: valueItems(0) }),
    });
    return { fieldId: floorField.svc_id, created };
  });
  b.statementsOf('create 1000 values', createCapture.created);
  const madeAt = nowMicros();
  const rawInsert = await b.onRaw((raw) =>
    insertFloor(raw, createCapture.created, 'field_values', quick ? 20 : 200, (column, row) => {
      const n = 1000 + row;
      switch (column) {
        case 'account_id':
          return 'bench';
        case 'field_id':
          return createCapture.fieldId;
        case 'svc_id':
          return newId('efo');
        case 'value':
          return `Account ${n}`;
        case 'remote_id':
          return `R${n}`;
        case 'value_id':
          return `V${n}`;
        case 'is_disabled':
          return 0;
        case 'created_at':
        case 'updated_at':
          return madeAt;
        default:
          throw new Error(`insert floor: the service inserts a column the floor does not fill: ${column}`);
      }
    }),
  );
  b.add({
    name: "floor: the create request's INSERTs of 1000 values, raw driver, one transaction each",
    unit: 'values/s',
    throughput: rawInsert,
  });

  // Bodies are built before the clock starts so that the load generator measures the server, not its own JSON.
  const createBodies = valueBatches(Math.ceil(VALUES / 1000), client.auth, 'create');
  let batch = 0;
  const createLoad = await load({
    url: valuesUrl,
    method: 'POST',
    headers: client.auth,
    connections: 4,
    amount: createBodies.length,
    setupRequest: (request) => ({ ...request, ...createBodies[batch++ % createBodies.length] }),
  });
  createBodies.length = 0;
  b.add({
    name: 'create values, 1000 per request',
    unit: 'values/s',
    ...rate(createLoad, 1000),
    floor: rawInsert,
    ...dataFloor,
    minShare: 0.8,
  });
  return { fieldId: field.svc_id, valuesUrl };
}

/** Renames 1000 values per request (by remote_id), 4 requests at a time. */
export async function updateValues(b: Bench, client: Client, field: ValuesField): Promise<void> {
  const { quick, values: VALUES } = b.settings;
  const updateBodies = Array.from({ length: quick ? 10 : 200 }, (_, n) => ({
    headers: { ...client.auth, 'idempotency-key': `update-${n}` },
    body: JSON.stringify({
      items: Array.from({ length: 1000 }, (_, i) => ({
        remote_id: `R${(n * 1000 + i) % VALUES}`,
        data: { value: `Renamed ${n}-${i}` },
      })),
    }),
  }));
  let updateBatch = 0;
  const updateLoad = await load({
    url: field.valuesUrl,
    method: 'PUT',
    headers: client.auth,
    connections: 4,
    amount: updateBodies.length,
    setupRequest: (request) => ({ ...request, ...updateBodies[updateBatch++ % updateBodies.length] }),
  });
  b.add({ name: 'update values, 1000 per request', unit: 'values/s', ...rate(updateLoad, 1000) });
}
