import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { valuesUrl, waitForLockWaiter } from './support/field-values.js';
import { storedValues } from './support/stored.js';

describeEachDialect('field values: update', (t) => {
  async function setup() {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const values = await api.newValues(fieldId, [
      { value: 'A', remote_id: 'rA', value_id: 'iA' },
      { value: 'B', remote_id: 'rB', value_id: 'iB' },
      { value: 'C', remote_id: 'rC', value_id: 'iC' },
    ]);
    return { api, fieldId, values };
  }

  it('updates by svc_id, remote_id and value_id, answering full values in request order', async () => {
    const { api, fieldId, values } = await setup();
    const [a, b, c] = values;
    const res = await api.put(valuesUrl(fieldId), {
      items: [
        { value_id: 'iC', data: { is_disabled: true } },
        { svc_id: a.svc_id, data: { value: 'A2', is_disabled: null } },
        { remote_id: 'rB', data: {} },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: [
        { ...c, is_disabled: true, updated_at: expect.stringMatching(ISO_MICROS) },
        { ...a, value: 'A2', updated_at: expect.stringMatching(ISO_MICROS) },
        b, // nothing asked to change: updated_at stays
      ],
    });
    expect(res.body.items[0].updated_at > c.updated_at).toBe(true);
    expect(res.body.items[1].updated_at > a.updated_at).toBe(true);

    const stored = await storedValues(t.ctx, api.accountId, fieldId);
    expect(stored.map((r) => [r.value, r.is_disabled])).toEqual([
      ['A2', 0],
      ['B', 0],
      ['C', 1],
    ]);
    expect((await api.get(valuesUrl(fieldId))).body.items).toEqual([res.body.items[1], b, res.body.items[0]]);

    // the same values again are no change: updated_at stays
    const same = await api.put(valuesUrl(fieldId), {
      items: [{ svc_id: a.svc_id, data: { value: 'A2', is_disabled: false } }],
    });
    expect(same.body.items).toEqual([res.body.items[1]]);
  });

  it('answers 404 naming every unknown address and changes nothing', async () => {
    const { api, fieldId, values } = await setup();
    const otherField = await api.newField({ name: 'Other' });
    const [foreign] = await api.newValues(otherField, [{ value: 'X', remote_id: 'rX' }]);
    const res = await api.put(valuesUrl(fieldId), {
      items: [
        { svc_id: values[0].svc_id, data: { value: 'changed' } },
        { remote_id: 'nope', data: { value: 'x' } },
        { svc_id: foreign.svc_id, data: { value: 'x' } },
        { value_id: 'iB', data: { is_disabled: true } },
        { remote_id: 'rX', data: { value: 'x' } },
      ],
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody('NOT_FOUND', {
        details: {
          field_id: fieldId,
          not_found: [
            { index: 1, remote_id: 'nope' },
            { index: 2, svc_id: foreign.svc_id },
            { index: 4, remote_id: 'rX' },
          ],
        },
      }),
    );
    expect((await api.get(valuesUrl(fieldId))).body.items).toEqual(values);
    expect((await api.get(valuesUrl(otherField))).body.items).toEqual([foreign]);
  });

  it('rejects one value addressed twice, and items with no or two addresses, with their paths', async () => {
    const { api, fieldId, values } = await setup();
    const twice = await api.put(valuesUrl(fieldId), {
      items: [
        { svc_id: values[0].svc_id, data: { value: 'x' } },
        { remote_id: 'rB', data: { value: 'y' } },
        { value_id: 'iA', data: { is_disabled: true } },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/items/2', message: expect.any(String) }] },
      }),
    );
    const sameAddress = await api.put(valuesUrl(fieldId), {
      items: [
        { remote_id: 'unknown', data: {} },
        { remote_id: 'unknown', data: {} },
      ],
    });
    expect(sameAddress.status).toBe(400);
    expect(sameAddress.body.details.errors).toEqual([{ path: '/items/1', message: expect.any(String) }]);

    const shape = await api.put(valuesUrl(fieldId), {
      items: [
        { data: { value: 'x' } },
        { svc_id: values[0].svc_id, remote_id: 'rA', data: {} },
        { value_id: 'iC' },
        { remote_id: 'rB', data: { value: '', is_disabled: 'yes', svc_id: 'x' } },
      ],
    });
    expect(shape.status).toBe(400);
    expect(shape.body.details.errors).toEqual(
      expect.arrayContaining([
        { path: '/items/0', message: expect.any(String) },
        { path: '/items/1', message: expect.any(String) },
        { path: '/items/2/data', message: expect.any(String) },
        { path: '/items/3/data/value', message: expect.any(String) },
        { path: '/items/3/data/is_disabled', message: expect.any(String) },
        { path: '/items/3/data/svc_id', message: expect.any(String) },
      ]),
    );
    expect(shape.body.details.errors).toHaveLength(6);
    for (const items of [[], Array.from({ length: 1001 }, () => ({ remote_id: 'rA', data: {} }))]) {
      const res = await api.put(valuesUrl(fieldId), { items });
      expect(res.status).toBe(400);
      expect(res.body.details.errors).toHaveLength(1);
      expect(res.body.details.errors[0].path).toBe('/items');
    }
    expect((await api.get(valuesUrl(fieldId))).body.items).toEqual(values);
  });

  it('updates 1000 values in one request', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const values = await api.newValues(
      fieldId,
      Array.from({ length: 1000 }, (_, i) => ({ value: `v${i}`, remote_id: `r${i}` })),
    );
    const res = await api.put(valuesUrl(fieldId), {
      items: values.map((v, i) =>
        i % 2
          ? { remote_id: v.remote_id, data: { value: `w${i}` } }
          : { svc_id: v.svc_id, data: { is_disabled: true } },
      ),
    });
    expect(res.status).toBe(200);
    expect(res.body.items.map((v: { svc_id: string }) => v.svc_id)).toEqual(values.map((v) => v.svc_id));
    const stored = await storedValues(t.ctx, api.accountId, fieldId);
    expect(stored.map((r) => [r.value, r.is_disabled])).toEqual(
      values.map((_, i) => (i % 2 ? [`w${i}`, 0] : [`v${i}`, 1])),
    );
  });

  it('loses no update when two requests change one value at once', async () => {
    const { api, fieldId, values } = await setup();
    const target = values[1];
    for (let round = 0; round < 5; round++) {
      const [byValue, byFlag] = await Promise.all([
        api.put(valuesUrl(fieldId), { items: [{ svc_id: target.svc_id, data: { value: `B${round}` } }] }),
        api.put(valuesUrl(fieldId), { items: [{ remote_id: 'rB', data: { is_disabled: round % 2 === 0 } }] }),
      ]);
      expect([byValue.status, byFlag.status]).toEqual([200, 200]);
      const [row] = (await storedValues(t.ctx, api.accountId, fieldId)).filter((r) => r.svc_id === target.svc_id);
      expect([row!.value, row!.is_disabled]).toEqual([`B${round}`, round % 2 === 0 ? 1 : 0]);
    }
  });

  it('applies an update over a concurrent uncommitted change without losing it', async () => {
    const { api, fieldId, values } = await setup();
    const rival = await t.ctx.db.direct.startTransaction().execute();
    await rival
      .updateTable('field_values')
      .set({ value: 'rival' })
      .where('account_id', '=', api.accountId)
      .where('svc_id', '=', values[2].svc_id)
      .execute();
    const pending = api.put(valuesUrl(fieldId), { items: [{ value_id: 'iC', data: { is_disabled: true } }] });
    await waitForLockWaiter(t.ctx);
    await rival.commit().execute();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      { ...values[2], value: 'rival', is_disabled: true, updated_at: expect.stringMatching(ISO_MICROS) },
    ]);
    const [row] = (await storedValues(t.ctx, api.accountId, fieldId)).filter((r) => r.svc_id === values[2].svc_id);
    expect([row!.value, row!.is_disabled]).toEqual(['rival', 1]);
  });

  it('replays a retried update without applying it again', async () => {
    const { api, fieldId, values } = await setup();
    const key = { 'idempotency-key': randomUUID() };
    const body = { items: [{ svc_id: values[0].svc_id, data: { value: 'first' } }] };
    const first = await api.put(valuesUrl(fieldId), body, key);
    expect(first.status).toBe(200);
    // a change in between must not be overwritten by the replay
    await api.put(valuesUrl(fieldId), { items: [{ svc_id: values[0].svc_id, data: { value: 'second' } }] });
    const again = await api.put(valuesUrl(fieldId), body, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await api.get(`${valuesUrl(fieldId)}/${values[0].svc_id}`)).body.value).toBe('second');
    const reused = await api.put(
      valuesUrl(fieldId),
      { items: [{ svc_id: values[0].svc_id, data: { value: 'other' } }] },
      key,
    );
    expect(reused.status).toBe(422);
    expect(reused.body.error_code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it("answers 404 for another account's field and 403 without field_values.write", async () => {
    const { api, fieldId, values } = await setup();
    const stranger = await t.ctx.as(['field_values.write']);
    const res = await stranger.put(valuesUrl(fieldId), { items: [{ svc_id: values[0].svc_id, data: { value: 'x' } }] });
    expect(res.status).toBe(404);
    expect(res.body.details).toEqual({ field_id: fieldId });
    const reader = await t.ctx.as(['field_values.read', 'fields.write'], api.accountId);
    expect(
      (await reader.put(valuesUrl(fieldId), { items: [{ svc_id: values[0].svc_id, data: { value: 'x' } }] })).status,
    ).toBe(403);
    expect((await api.get(valuesUrl(fieldId))).body.items).toEqual(values);
  });
});
