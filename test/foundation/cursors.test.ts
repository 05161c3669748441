import { expect, it } from 'vitest';
import { Api } from '../support/api.js';
import { describeEachDialect } from '../support/context.js';

const ids = (res: { body: { items: { svc_id: string }[] } }) => res.body.items.map((f) => f.svc_id);

describeEachDialect('pagination cursors', (t) => {
  it('opens a cursor in another app over the same database (the key lives in the database)', async () => {
    const api = await t.ctx.as(['fields.write']);
    const made: string[] = [];
    for (let i = 0; i < 4; i++) made.push(await api.newField({ name: `F${i}`, group: 'USER' }));
    const first = await api.get('/v1/fields', { limit: '2' });
    expect(ids(first)).toEqual(made.slice(0, 2));

    const other = await t.ctx.secondApp();
    const elsewhere = new Api(other, api.token, api.accountId, api.clientId);
    const second = await elsewhere.get('/v1/fields', { limit: '2', cursor: first.body.next_cursor });
    expect(second.status).toBe(200);
    expect(ids(second)).toEqual(made.slice(2));
    expect(second.body.next_cursor).toBeNull();
  });

  it('rejects a cursor of the same account from another list filter, and a truncated one', async () => {
    const api = await t.ctx.as(['fields.write']);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push(await api.newField({ name: `F${i}`, group: 'USER' }));
    const filtered = await api.get('/v1/fields', { limit: '1', 'field_id[]': [made[0]!, made[2]!] });
    const cursor: string = filtered.body.next_cursor;
    // the same filter in another order is the same filter
    const reordered = await api.get('/v1/fields', { limit: '1', cursor, 'field_id[]': [made[2]!, made[0]!] });
    expect(ids(reordered)).toEqual([made[2]]);
    const queries: Record<string, string | string[]>[] = [
      { limit: '1', cursor },
      { limit: '1', cursor, 'field_id[]': [made[0]!] },
      { limit: '1', cursor: cursor.slice(0, -2) },
      { limit: '1', cursor: `${cursor}AA` },
    ];
    for (const query of queries) {
      const res = await api.get('/v1/fields', query);
      expect([res.status, res.body.error_code, res.body.details]).toEqual([400, 'INVALID_CURSOR', null]);
    }
  });

  it('a cursor grants nothing: a token of another account gets INVALID_CURSOR, a token without scope 403', async () => {
    const api = await t.ctx.as(['fields.write']);
    for (let i = 0; i < 2; i++) await api.newField({ name: `F${i}`, group: 'USER' });
    const cursor = (await api.get('/v1/fields', { limit: '1' })).body.next_cursor;
    const sameAccountReader = await t.ctx.as(['fields.read'], api.accountId);
    expect((await sameAccountReader.get('/v1/fields', { limit: '1', cursor })).status).toBe(200);
    const noScope = await t.ctx.as(['accounting.record.read'], api.accountId);
    expect((await noScope.get('/v1/fields', { limit: '1', cursor })).status).toBe(403);
  });

  it('returns every field once while fields are created and deleted between pages', async () => {
    const api = await t.ctx.as(['fields.write']);
    const kept: string[] = [];
    const doomed: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = await api.newField({ name: `F${i}`, group: 'ERP' });
      (i % 4 === 3 ? doomed : kept).push(id);
    }
    const seen: string[] = [];
    const added: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res: { status: number; body: any } = await api.get('/v1/fields', {
        limit: '3',
        ...(cursor ? { cursor } : {}),
      });
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      cursor = res.body.next_cursor;
      // between pages: delete one not yet seen, add one at the end
      const victim = doomed[page];
      if (victim && !seen.includes(victim)) await api.delete(`/v1/fields/${victim}`);
      if (page < 3) added.push(await api.newField({ name: `New${page}`, group: 'USER' }));
      page++;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of [...kept, ...added]) expect(seen).toContain(id);
    const stored = ids(await api.get('/v1/fields', { limit: '1000' }));
    expect(seen.filter((id) => stored.includes(id))).toEqual(stored);
  });
});
