import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS, VALUE_ID } from './support/expect.js';
import { rowShape, valuesUrl, waitForLockWaiter } from './support/field-values.js';
import { storedValues } from './support/stored.js';

describeEachDialect('field values: create', (t) => {
  it('creates a batch and answers the values in request order', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const res = await api.create(valuesUrl(fieldId), {
      items: [
        { value: 'Sales', remote_id: 'R-1', value_id: 'V-1', is_disabled: true },
        { value: 'Marketing' },
        { value: 'Sales', remote_id: null, value_id: null, is_disabled: null },
      ],
    });
    expect(res.status).toBe(200);
    const value = (v: string, extra: Record<string, unknown>) => ({
      svc_id: expect.stringMatching(VALUE_ID),
      field_id: fieldId,
      value: v,
      is_disabled: false,
      remote_id: null,
      value_id: null,
      updated_at: expect.stringMatching(ISO_MICROS),
      ...extra,
    });
    expect(res.body).toEqual({
      items: [
        value('Sales', { remote_id: 'R-1', value_id: 'V-1', is_disabled: true }),
        value('Marketing', {}),
        value('Sales', {}),
      ],
    });
    const ids = res.body.items.map((v: { svc_id: string }) => v.svc_id);
    expect(new Set(ids).size).toBe(3);
    expect([...ids].sort()).toEqual(ids); // creation order is request order

    const stored = await storedValues(t.ctx, api.accountId, fieldId);
    expect(stored.map(rowShape)).toEqual(res.body.items.map(({ updated_at: _, ...v }: { updated_at: string }) => v));
    expect(stored.every((row) => row.created_at === row.updated_at)).toBe(true);
  });

  it('accepts 1000 items and rejects 0 or 1001, writing nothing', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const empty = await api.create(valuesUrl(fieldId), { items: [] });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/items', message: expect.any(String) }] },
      }),
    );
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ value: `v${i}`, remote_id: `r${i}`, value_id: `i${i}` }));
    const over = await api.create(valuesUrl(fieldId), { items: many(1001) });
    expect(over.status).toBe(400);
    expect(over.body.details).toEqual({ errors: [{ path: '/items', message: expect.any(String) }] });
    expect(await storedValues(t.ctx, api.accountId, fieldId)).toEqual([]);

    const full = await api.create(valuesUrl(fieldId), { items: many(1000) });
    expect(full.status).toBe(200);
    expect(full.body.items.map((v: { remote_id: string }) => v.remote_id)).toEqual(many(1000).map((v) => v.remote_id));
    expect(await storedValues(t.ctx, api.accountId, fieldId)).toHaveLength(1000);
  });

  it('reports every invalid member with its path', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const res = await api.create(valuesUrl(fieldId), {
      items: [
        { value: 'ok' },
        { value: '', remote_id: 'x'.repeat(256), svc_id: 'efo_mine' },
        { remote_id: 'r', value_id: 7, is_disabled: 'no' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual(
      expect.arrayContaining([
        { path: '/items/1/svc_id', message: expect.any(String) },
        { path: '/items/1/value', message: expect.any(String) },
        { path: '/items/1/remote_id', message: expect.any(String) },
        { path: '/items/2/value', message: expect.any(String) },
        { path: '/items/2/value_id', message: expect.any(String) },
        { path: '/items/2/is_disabled', message: expect.any(String) },
      ]),
    );
    expect(res.body.details.errors).toHaveLength(6);
    const long = await api.create(valuesUrl(fieldId), { items: [{ value: 'x'.repeat(256) }] });
    expect(long.body.details.errors).toEqual([{ path: '/items/0/value', message: expect.any(String) }]);
    expect(await storedValues(t.ctx, api.accountId, fieldId)).toEqual([]);
  });

  it('requires an Idempotency-Key and replays a retry without creating twice', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const bare = await api.post(valuesUrl(fieldId), { items: [{ value: 'A' }] });
    expect(bare.status).toBe(400);
    expect(bare.body.details.errors).toEqual([{ path: '/headers/idempotency-key', message: expect.any(String) }]);

    const key = { 'idempotency-key': randomUUID() };
    const first = await api.post(valuesUrl(fieldId), { items: [{ value: 'A', remote_id: 'A' }] }, key);
    const again = await api.post(valuesUrl(fieldId), { items: [{ value: 'A', remote_id: 'A' }] }, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await storedValues(t.ctx, api.accountId, fieldId)).toHaveLength(1);
  });

  it('rejects remote_id and value_id clashes with stored values and within the batch, writing nothing', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const [stored] = await api.newValues(fieldId, [{ value: 'Old', remote_id: 'R1', value_id: 'V1' }]);
    const res = await api.create(valuesUrl(fieldId), {
      items: [
        { value: 'a', remote_id: 'R2', value_id: 'V2' },
        { value: 'b', remote_id: 'R1' },
        { value: 'c', value_id: 'V2' },
        { value: 'd', remote_id: 'R2', value_id: 'V1' },
        { value: 'e', remote_id: 'V1', value_id: 'R1' }, // the two columns are separate namespaces
      ],
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual(
      errorBody('CONFLICT', {
        details: {
          conflicts: [
            { index: 1, field: 'remote_id', value: 'R1', with: { svc_id: stored.svc_id } },
            { index: 2, field: 'value_id', value: 'V2', with: { index: 0 } },
            { index: 3, field: 'remote_id', value: 'R2', with: { index: 0 } },
            { index: 3, field: 'value_id', value: 'V1', with: { svc_id: stored.svc_id } },
          ],
        },
      }),
    );
    expect((await storedValues(t.ctx, api.accountId, fieldId)).map((r) => r.svc_id)).toEqual([stored.svc_id]);

    // the same ids are free in another field
    const other = await api.newField({ name: 'Other' });
    expect(
      (await api.create(valuesUrl(other), { items: [{ value: 'x', remote_id: 'R1', value_id: 'V1' }] })).status,
    ).toBe(200);
  });

  it('lets exactly one of concurrent creates with one remote_id win', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.create(valuesUrl(fieldId), { items: [{ value: `try ${i}` }, { value: `x${i}`, remote_id: 'SAME' }] }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 200)!;
    for (const loser of results.filter((r) => r.status === 409)) {
      expect(loser.body.details).toEqual({
        conflicts: [{ index: 1, field: 'remote_id', value: 'SAME', with: { svc_id: winner.body.items[1].svc_id } }],
      });
    }
    const stored = await storedValues(t.ctx, api.accountId, fieldId);
    expect(stored.map((r) => r.svc_id)).toEqual(winner.body.items.map((v: { svc_id: string }) => v.svc_id));
  });

  it('names the clash when a concurrent create commits the remote_id after the check', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    // Another writer holds an uncommitted value with remote_id SAME: the request's check cannot see it,
    // its insert waits on the unique index (PostgreSQL) or on the write lock (SQLite) until we commit.
    const rival = await t.ctx.db.direct.startTransaction().execute();
    const now = Date.now() * 1000;
    await rival
      .insertInto('field_values')
      .values({
        account_id: api.accountId,
        field_id: fieldId,
        svc_id: 'efo_rival',
        value: 'rival',
        remote_id: 'SAME',
        value_id: null,
        is_disabled: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const pending = api.create(valuesUrl(fieldId), { items: [{ value: 'a' }, { value: 'b', remote_id: 'SAME' }] });
    await waitForLockWaiter(t.ctx);
    await rival.commit().execute();
    const res = await pending;
    expect(res.status).toBe(409);
    expect(res.body.details).toEqual({
      conflicts: [{ index: 1, field: 'remote_id', value: 'SAME', with: { svc_id: 'efo_rival' } }],
    });
    expect((await storedValues(t.ctx, api.accountId, fieldId)).map((r) => r.svc_id)).toEqual(['efo_rival']);
  });

  it("answers 404 for a field that is missing or another account's, and needs field_values.write", async () => {
    const owner = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await owner.newField();
    const stranger = await t.ctx.as(['field_values.write']);
    const res = await stranger.create(valuesUrl(fieldId), { items: [{ value: 'x' }] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorBody('NOT_FOUND', { details: { field_id: fieldId } }));
    expect((await owner.create(valuesUrl('extended_field_nope'), { items: [{ value: 'x' }] })).status).toBe(404);
    const reader = await t.ctx.as(['field_values.read', 'fields.write'], owner.accountId);
    const forbidden = await reader.create(valuesUrl(fieldId), { items: [{ value: 'x' }] });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error_code).toBe('FORBIDDEN');
    expect(await storedValues(t.ctx, owner.accountId, fieldId)).toEqual([]);
  });
});
