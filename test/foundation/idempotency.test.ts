import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { errorBody } from '../support/expect.js';
import { storedFields } from '../support/stored.js';

describeEachDialect('Idempotency-Key on /v1/fields', (t) => {
  it('replays a create with the same status and body, storing nothing new', async () => {
    const api = await t.ctx.as(['fields.write']);
    const key = { 'idempotency-key': 'create-1' };
    const first = await api.post('/v1/fields', { name: 'GL', group: 'ACCOUNTING', remote_id: 'gl' }, key);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // same body as JSON, members in another order
    const again = await api.post('/v1/fields', { remote_id: 'gl', group: 'ACCOUNTING', name: 'GL' }, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-request-id']).toMatch(/^req_/);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);

    const other = await api.post('/v1/fields', { name: 'GL2', group: 'ACCOUNTING', remote_id: 'gl' }, key);
    expect(other.status).toBe(422);
    expect(other.body).toEqual(
      errorBody('IDEMPOTENCY_KEY_REUSED', {
        message: 'This Idempotency-Key was already used with a different request.',
      }),
    );
    expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
  });

  it('replays PUT and DELETE, and a stored business error (404)', async () => {
    const api = await t.ctx.as(['fields.write']);
    const fieldId = await api.newField({ name: 'A', group: 'USER' });
    const put = await api.put(`/v1/fields/${fieldId}`, { name: 'B' }, { 'idempotency-key': 'put-1' });
    expect(put.status).toBe(200);
    await api.put(`/v1/fields/${fieldId}`, { name: 'C' }); // a change in between, without a key
    const putAgain = await api.put(`/v1/fields/${fieldId}`, { name: 'B' }, { 'idempotency-key': 'put-1' });
    expect([putAgain.status, putAgain.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(putAgain.body).toEqual(put.body);
    expect((await api.get(`/v1/fields/${fieldId}`)).body.name).toBe('C');

    const del = await api.delete(`/v1/fields/${fieldId}`, undefined, { 'idempotency-key': 'del-1' });
    const delAgain = await api.delete(`/v1/fields/${fieldId}`, undefined, { 'idempotency-key': 'del-1' });
    expect([del.status, del.body, del.headers['idempotent-replayed']]).toEqual([200, {}, undefined]);
    expect([delAgain.status, delAgain.body, delAgain.headers['idempotent-replayed']]).toEqual([200, {}, 'true']);

    const missing = await api.put('/v1/fields/extended_field_nope', { name: 'X' }, { 'idempotency-key': 'put-404' });
    expect(missing.status).toBe(404);
    const replayed = await api.put('/v1/fields/extended_field_nope', { name: 'X' }, { 'idempotency-key': 'put-404' });
    expect([replayed.status, replayed.headers['idempotent-replayed']]).toEqual([404, 'true']);
    expect(replayed.body).toEqual(missing.body);
    const row = await t.ctx.db.direct
      .selectFrom('idempotency_keys')
      .select(['state', 'response_status'])
      .where('client_id', '=', api.clientId)
      .where('idempotency_key', '=', 'put-404')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'DONE', response_status: 404 });
    // the same key on another path is another request
    const elsewhere = await api.put('/v1/fields/extended_field_other', { name: 'X' }, { 'idempotency-key': 'put-404' });
    expect(elsewhere.status).toBe(422);
  });

  it('stores exactly one field when 30 requests race with one key', async () => {
    const api = await t.ctx.as(['fields.write']);
    const body = { name: 'Race', group: 'ERP' };
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => api.post('/v1/fields', body, { 'idempotency-key': 'race' })),
    );
    const created = answers.filter((a) => a.status === 200);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const a of created) expect(a.body).toEqual(created[0]!.body);
    expect(created.filter((a) => a.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([a.status, a.body.error_code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
    }
    expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
  });

  it('stores nothing for a request that fails validation, so the key can be reused', async () => {
    const api = await t.ctx.as(['fields.write']);
    const key = { 'idempotency-key': 'fix-me' };
    expect((await api.post('/v1/fields', { name: 'X', group: 'NOPE' }, key)).status).toBe(400);
    const fixed = await api.post('/v1/fields', { name: 'X', group: 'USER' }, key);
    expect([fixed.status, fixed.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
  });

  it('scopes keys per client: another client of the account may use the same key', async () => {
    const a = await t.ctx.as(['fields.write']);
    const b = await t.ctx.as(['fields.write'], a.accountId);
    const key = { 'idempotency-key': 'shared' };
    const first = await a.post('/v1/fields', { name: 'A', group: 'USER' }, key);
    const second = await b.post('/v1/fields', { name: 'B', group: 'USER' }, key);
    expect([first.status, second.status, second.headers['idempotent-replayed']]).toEqual([200, 200, undefined]);
    expect(second.body.svc_id).not.toBe(first.body.svc_id);
    expect(await storedFields(t.ctx, a.accountId)).toHaveLength(2);
  });

  it('rejects keys that are too long or not printable ASCII', async () => {
    const api = await t.ctx.as(['fields.write']);
    for (const key of ['k'.repeat(256), 'clé', 'tab\there']) {
      const res = await api.post('/v1/fields', { name: 'X', group: 'USER' }, { 'idempotency-key': key });
      expect(res.status).toBe(400);
      expect(res.body.details.errors).toEqual([{ path: '/headers/idempotency-key', message: expect.any(String) }]);
    }
    expect(
      (await api.post('/v1/fields', { name: 'X', group: 'USER' }, { 'idempotency-key': 'k'.repeat(255) })).status,
    ).toBe(200);
    expect(await storedFields(t.ctx, api.accountId)).toHaveLength(1);
  });
});
