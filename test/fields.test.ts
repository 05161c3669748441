import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { storedFields } from './support/stored.js';

describeEachDialect('custom fields /v1/fields', (t) => {
  it('creates, gets, lists, updates and deletes a field', async () => {
    const api = await t.ctx.as(['fields.write']);
    const created = await api.create('/v1/fields', { name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      svc_id: expect.stringMatching(/^extended_field_[0-9a-z]{26}$/),
      name: 'GL Account',
      group: 'ACCOUNTING',
      remote_id: 'GL',
      is_disabled: false,
      updated_at: expect.stringMatching(ISO_MICROS),
    });
    const id = created.body.svc_id;

    expect((await api.get(`/v1/fields/${id}`)).body).toEqual(created.body);
    expect((await api.get('/v1/fields')).body).toEqual({ items: [created.body], next_cursor: null });

    const renamed = await api.put(`/v1/fields/${id}`, { name: 'GL', is_disabled: null });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created.body, name: 'GL', updated_at: expect.stringMatching(ISO_MICROS) });
    expect(renamed.body.updated_at > created.body.updated_at).toBe(true);

    // nothing changes → updated_at stays
    const same = await api.put(`/v1/fields/${id}`, { name: 'GL' });
    expect(same.body).toEqual(renamed.body);
    const empty = await api.put(`/v1/fields/${id}`, {});
    expect(empty.body).toEqual(renamed.body);

    const disabled = await api.put(`/v1/fields/${id}`, { is_disabled: true });
    expect(disabled.body.is_disabled).toBe(true);
    expect((await api.get(`/v1/fields/${id}`)).body).toEqual(disabled.body);

    const deleted = await api.delete(`/v1/fields/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    const gone = await api.get(`/v1/fields/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual(errorBody('NOT_FOUND', { details: { field_id: id } }));
    expect((await api.delete(`/v1/fields/${id}`)).status).toBe(404);
    expect((await api.get('/v1/fields')).body).toEqual({ items: [], next_cursor: null });
  });

  it('rejects invalid bodies with every problem and writes nothing', async () => {
    const api = await t.ctx.as(['fields.write']);
    const res = await api.create('/v1/fields', { name: '', group: 'NOPE', svc_id: 'x', is_disabled: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('INVALID_REQUEST');
    expect(res.body.details.errors).toEqual(
      expect.arrayContaining([
        { path: '/svc_id', message: expect.any(String) },
        { path: '/name', message: expect.any(String) },
        { path: '/group', message: 'must be one of: ACCOUNTING, USER, ERP (got "NOPE")' },
        { path: '/is_disabled', message: expect.any(String) },
      ]),
    );
    expect(res.body.details.errors).toHaveLength(4);
    const tooLong = await api.create('/v1/fields', { name: 'x'.repeat(256), group: 'USER' });
    expect(tooLong.body.details.errors).toEqual([{ path: '/name', message: expect.any(String) }]);
    expect((await api.get('/v1/fields')).body.items).toEqual([]);
  });

  it('requires an Idempotency-Key on create', async () => {
    const api = await t.ctx.as(['fields.write']);
    const res = await api.post('/v1/fields', { name: 'Dept', group: 'USER' });
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual([{ path: '/headers/idempotency-key', message: expect.any(String) }]);
    expect((await api.get('/v1/fields')).body.items).toEqual([]);
  });

  it('refuses an integration_id (there are no integrations yet) instead of dropping it; null is no integration', async () => {
    const api = await t.ctx.as(['fields.write']);
    const key = { 'idempotency-key': 'field-for-an-integration' };
    const refused = await api.post('/v1/fields', { name: 'GL', group: 'ACCOUNTING', integration_id: 'int_1' }, key);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '/integration_id',
              message: 'must be null: svc has no integrations yet, so a field cannot be created for one',
            },
          ],
        },
      }),
    );
    expect(await storedFields(t.ctx, api.accountId)).toEqual([]);
    // A refusal of the body is not kept under the key: the caller fixes the body and retries with it.
    const created = await api.post('/v1/fields', { name: 'GL', group: 'ACCOUNTING', integration_id: null }, key);
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual([
      'group',
      'is_disabled',
      'name',
      'remote_id',
      'svc_id',
      'updated_at',
    ]);
    expect(await storedFields(t.ctx, api.accountId)).toEqual([
      expect.objectContaining({ svc_id: created.body.svc_id, integration_id: null }),
    ]);
  });

  it('pages through every field exactly once, filtered by field_id[]', async () => {
    const api = await t.ctx.as(['fields.write', 'fields.read']);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await api.newField({ name: `F${i}`, group: 'ERP' }));

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: any } = await api.get('/v1/fields', {
        limit: '3',
        ...(cursor ? { cursor } : {}),
      });
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((f: { svc_id: string }) => f.svc_id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);

    const filtered = await api.get('/v1/fields', { 'field_id[]': [ids[5]!, ids[1]!, 'missing'] });
    expect(filtered.body.items.map((f: { svc_id: string }) => f.svc_id)).toEqual([ids[1], ids[5]]);
    const single = await api.get('/v1/fields', { 'field_id[]': ids[2]! });
    expect(single.body.items.map((f: { svc_id: string }) => f.svc_id)).toEqual([ids[2]]);

    expect((await api.get('/v1/fields', { limit: '0' })).status).toBe(400);
    const over = await api.get('/v1/fields', { limit: '1001' });
    expect(over.status).toBe(400);
    expect(over.body.details.errors).toEqual([{ path: '/query/limit', message: expect.any(String) }]);
  });

  it('rejects tampered, foreign and mismatched cursors', async () => {
    const api = await t.ctx.as(['fields.write']);
    for (let i = 0; i < 3; i++) await api.newField({ name: `F${i}`, group: 'ERP' });
    const first = await api.get('/v1/fields', { limit: '1' });
    const cursor: string = first.body.next_cursor;
    expect(cursor).toEqual(expect.any(String));

    const flipped = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
    const tampered = await api.get('/v1/fields', { limit: '1', cursor: flipped });
    expect(tampered.status).toBe(400);
    expect(tampered.body).toEqual(errorBody('INVALID_CURSOR'));
    expect((await api.get('/v1/fields', { limit: '1', cursor: 'garbage!' })).body.error_code).toBe('INVALID_CURSOR');
    // bound to the filters
    const mismatch = await api.get('/v1/fields', { limit: '1', cursor, 'field_id[]': 'x' });
    expect(mismatch.body.error_code).toBe('INVALID_CURSOR');
    // another account cannot use it
    const other = await t.ctx.as(['fields.read']);
    expect((await other.get('/v1/fields', { limit: '1', cursor })).body.error_code).toBe('INVALID_CURSOR');
    // the limit may change between pages
    expect((await api.get('/v1/fields', { limit: '5', cursor })).body.items).toHaveLength(2);
  });

  it("hides another account's fields: 404 for get, update, delete; absent from lists", async () => {
    const owner = await t.ctx.as(['fields.write']);
    const stranger = await t.ctx.as(['fields.write']);
    const field = (await owner.create('/v1/fields', { name: 'Secret', group: 'USER' })).body;

    for (const res of [
      await stranger.get(`/v1/fields/${field.svc_id}`),
      await stranger.put(`/v1/fields/${field.svc_id}`, { name: 'Mine' }),
      await stranger.delete(`/v1/fields/${field.svc_id}`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error_code).toBe('NOT_FOUND');
    }
    expect((await stranger.get('/v1/fields')).body.items).toEqual([]);
    expect((await stranger.get('/v1/fields', { 'field_id[]': field.svc_id })).body.items).toEqual([]);
    expect((await owner.get(`/v1/fields/${field.svc_id}`)).body).toEqual(field);
  });
});
