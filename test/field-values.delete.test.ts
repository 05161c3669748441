import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { valuesUrl } from './support/field-values.js';
import { storedValues } from './support/stored.js';

describeEachDialect('field values: delete', (t) => {
  async function setup() {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const values = await api.newValues(fieldId, [
      { value: 'A', remote_id: 'rA', value_id: 'iA' },
      { value: 'B', remote_id: 'rB', value_id: 'iB' },
      { value: 'C', remote_id: 'rC', value_id: 'iC' },
      { value: 'D' },
    ]);
    return { api, fieldId, values };
  }
  const idsOf = (rows: { svc_id: string }[]) => rows.map((r) => r.svc_id);

  it('deletes by svc_id, remote_id and value_id and answers {}', async () => {
    const { api, fieldId, values } = await setup();
    const res = await api.delete(valuesUrl(fieldId), {
      items: [{ value_id: 'iC' }, { svc_id: values[3].svc_id }, { remote_id: 'rA' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(idsOf(await storedValues(t.ctx, api.accountId, fieldId))).toEqual([values[1].svc_id]);
    expect((await api.get(`${valuesUrl(fieldId)}/${values[0].svc_id}`)).status).toBe(404);
    // a deleted value's remote_id and value_id are free again
    expect(
      (await api.create(valuesUrl(fieldId), { items: [{ value: 'A', remote_id: 'rA', value_id: 'iA' }] })).status,
    ).toBe(200);
  });

  it('answers 404 naming every unknown address and deletes nothing', async () => {
    const { api, fieldId, values } = await setup();
    const otherField = await api.newField({ name: 'Other' });
    const [foreign] = await api.newValues(otherField, [{ value: 'X', value_id: 'iX' }]);
    const res = await api.delete(valuesUrl(fieldId), {
      items: [{ svc_id: values[0].svc_id }, { value_id: 'iX' }, { remote_id: 'rB' }, { svc_id: 'efo_nope' }],
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody('NOT_FOUND', {
        details: {
          field_id: fieldId,
          not_found: [
            { index: 1, value_id: 'iX' },
            { index: 3, svc_id: 'efo_nope' },
          ],
        },
      }),
    );
    expect(idsOf(await storedValues(t.ctx, api.accountId, fieldId))).toEqual(idsOf(values));
    expect(idsOf(await storedValues(t.ctx, api.accountId, otherField))).toEqual([foreign.svc_id]);
  });

  it('rejects one value addressed twice and malformed items, deleting nothing', async () => {
    const { api, fieldId, values } = await setup();
    const twice = await api.delete(valuesUrl(fieldId), {
      items: [{ remote_id: 'rB' }, { svc_id: values[0].svc_id }, { value_id: 'iB' }],
    });
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/items/2', message: expect.any(String) }] },
      }),
    );
    const shape = await api.delete(valuesUrl(fieldId), {
      items: [{}, { svc_id: values[0].svc_id, value_id: 'iA' }, { remote_id: '' }, { remote_id: 'rC', data: {} }],
    });
    expect(shape.status).toBe(400);
    expect(shape.body.details.errors).toEqual([
      { path: '/items/0', message: expect.any(String) },
      { path: '/items/1', message: expect.any(String) },
      { path: '/items/2/remote_id', message: expect.any(String) },
      { path: '/items/3/data', message: expect.any(String) },
    ]);
    for (const body of [
      { items: [] },
      { items: Array.from({ length: 1001 }, (_, i) => ({ svc_id: `efo_${i}` })) },
      {},
    ]) {
      const res = await api.delete(valuesUrl(fieldId), body);
      expect(res.status).toBe(400);
      expect(res.body.details.errors[0].path).toBe('/items');
    }
    expect(idsOf(await storedValues(t.ctx, api.accountId, fieldId))).toEqual(idsOf(values));
  });

  it('needs fields.write: a token with only field_values.write gets 403', async () => {
    const { api, fieldId, values } = await setup();
    const writer = await t.ctx.as(['field_values.write', 'field_values.read'], api.accountId);
    const res = await writer.delete(valuesUrl(fieldId), { items: [{ svc_id: values[0].svc_id }] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(
      errorBody('FORBIDDEN', {
        details: { required_scopes: ['fields.write'] },
      }),
    );
    expect(idsOf(await storedValues(t.ctx, api.accountId, fieldId))).toEqual(idsOf(values));
  });

  it("answers 404 for another account's field and leaves it alone", async () => {
    const { api, fieldId, values } = await setup();
    const stranger = await t.ctx.as(['fields.write']);
    const res = await stranger.delete(valuesUrl(fieldId), { items: [{ svc_id: values[0].svc_id }] });
    expect(res.status).toBe(404);
    expect(res.body.details).toEqual({ field_id: fieldId });
    const ownField = await stranger.newField();
    const viaOwn = await stranger.delete(valuesUrl(ownField), { items: [{ svc_id: values[0].svc_id }] });
    expect(viaOwn.status).toBe(404);
    expect(viaOwn.body.details.not_found).toEqual([{ index: 0, svc_id: values[0].svc_id }]);
    expect(idsOf(await storedValues(t.ctx, api.accountId, fieldId))).toEqual(idsOf(values));
  });

  it('replays a retried delete instead of answering 404', async () => {
    const { api, fieldId, values } = await setup();
    const key = { 'idempotency-key': randomUUID() };
    const body = { items: [{ svc_id: values[0].svc_id }] };
    const first = await api.delete(valuesUrl(fieldId), body, key);
    const again = await api.delete(valuesUrl(fieldId), body, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual({});
    expect((await api.delete(valuesUrl(fieldId), body)).status).toBe(404); // without the key: really gone
    expect(idsOf(await storedValues(t.ctx, api.accountId, fieldId))).toEqual(idsOf(values.slice(1)));
  });

  it('lets one of two concurrent deletes of a value succeed and the other answer 404', async () => {
    const { api, fieldId, values } = await setup();
    const results = await Promise.all([
      api.delete(valuesUrl(fieldId), { items: [{ remote_id: 'rB' }, { svc_id: values[3].svc_id }] }),
      api.delete(valuesUrl(fieldId), { items: [{ svc_id: values[1].svc_id }] }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 404]);
    expect(idsOf(await storedValues(t.ctx, api.accountId, fieldId))).toEqual(
      results[0]!.status === 200 ? idsOf([values[0], values[2]]) : idsOf([values[0], values[2], values[3]]),
    );
  });

  it('deletes the values of a deleted field', async () => {
    const { api, fieldId } = await setup();
    const keep = await api.newField({ name: 'Keep' });
    const kept = await api.newValues(keep, [{ value: 'K', remote_id: 'rA' }]);
    expect((await api.delete(`/v1/fields/${fieldId}`)).status).toBe(200);
    expect(await storedValues(t.ctx, api.accountId, fieldId)).toEqual([]);
    expect(idsOf(await storedValues(t.ctx, api.accountId, keep))).toEqual(idsOf(kept));
    expect((await api.get(valuesUrl(fieldId))).status).toBe(404);
  });
});
