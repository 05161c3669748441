import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { Api, Query } from './support/api.js';
import { ADMIN } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { valuesUrl } from './support/field-values.js';

const searchUrl = (fieldId: string) => `/internal/v1/fields/${fieldId}/values/search`;

type Value = { svc_id: string; value: string; remote_id: string | null; is_disabled: boolean };

/** The values a search answers, by name; the whole body must be `{items}` of values as the API shows them. */
async function found(api: Api, fieldId: string, query: Query): Promise<string[]> {
  const res = await api.get(searchUrl(fieldId), query);
  expect(res.status, `${JSON.stringify(query)}: ${res.text}`).toBe(200);
  expect(Object.keys(res.body)).toEqual(['items']);
  return res.body.items.map((v: Value) => v.value);
}

/** A field and its values, created in order (1000 per request). */
async function fieldWith(api: Api, items: Record<string, unknown>[]): Promise<{ fieldId: string; values: Value[] }> {
  const fieldId = await api.newField();
  const values: Value[] = [];
  for (let i = 0; i < items.length; i += 1000) values.push(...(await api.newValues(fieldId, items.slice(i, i + 1000))));
  return { fieldId, values };
}

describeEachDialect('field value search', (t) => {
  it('answers values starting with the text (in value order), then those containing it in value or remote_id (in creation order)', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const { fieldId, values } = await fieldWith(api, [
      { value: 'Sales Ops', remote_id: 'S-1' },
      { value: 'OPS Center', remote_id: 'C-1' },
      { value: 'Travel', remote_id: 'T-OPS' },
      { value: 'Devops' },
      { value: 'ops east', remote_id: 'E-1' },
      { value: 'Marketing', remote_id: 'M-1' },
      { value: 'Opal' },
      { value: 'Fees 5%_x', remote_id: 'F_1' },
      { value: '😀😀 Party' },
      { value: 'Big 😀😀' },
    ]);
    const res = await api.get(searchUrl(fieldId), { q: 'ops' });
    expect([res.status, res.body]).toEqual([200, { items: [1, 4, 0, 2, 3].map((i) => values[i]) }]);
    const cases: [Query, string[]][] = [
      [{ q: 'OPS' }, ['OPS Center', 'ops east', 'Sales Ops', 'Travel', 'Devops']],
      [{ q: 'oPs', limit: '3' }, ['OPS Center', 'ops east', 'Sales Ops']],
      [{ q: 'ops', limit: '1' }, ['OPS Center']],
      [{ q: 't-o' }, ['Travel']],
      [{ q: 'ales op' }, ['Sales Ops']],
      // One or two characters: the start of the value only.
      [{ q: 'op' }, ['Opal', 'OPS Center', 'ops east']],
      [{ q: 'S' }, ['Sales Ops']],
      [{ q: '-1' }, []],
      [{ q: 'ps' }, []],
      // LIKE's wildcards and FTS5's syntax are text like any other.
      [{ q: '5%_' }, ['Fees 5%_x']],
      [{ q: '5%x' }, []],
      [{ q: 'f_1' }, ['Fees 5%_x']],
      [{ q: '%' }, []],
      [{ q: '_' }, []],
      [{ q: '"ops' }, []],
      [{ q: 'ops*' }, []],
      // A value and its remote_id are two texts: nothing matches across them.
      [{ q: 'ter C' }, []],
      [{ q: 'east E-' }, []],
      // Two characters, however many UTF-16 units they take.
      [{ q: '😀😀' }, ['😀😀 Party']],
      [{ q: '😀😀 ' }, ['😀😀 Party']],
    ];
    const answers = [];
    for (const [query] of cases) answers.push([query, await found(api, fieldId, query)]);
    expect(answers).toEqual(cases);
  });

  it('answers disabled values only with include_disabled=true, however many come first', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const disabled = Array.from({ length: 30 }, (_, i) => ({ value: `Zed ${i}`, is_disabled: true }));
    const { fieldId, values } = await fieldWith(api, [
      ...disabled,
      { value: 'Zed on' },
      { value: 'Azed' },
      { value: 'Bzed', is_disabled: true },
      { value: 'Zed later' },
    ]);
    const off = await api.put(valuesUrl(fieldId), {
      items: [{ svc_id: values[33]!.svc_id, data: { is_disabled: true } }],
    });
    expect(off.status, off.text).toBe(200);
    expect(await found(api, fieldId, { q: 'zed' })).toEqual(['Zed on', 'Azed']);
    for (const limit of ['1', '2']) {
      expect(await found(api, fieldId, { q: 'zed', limit })).toEqual(['Zed on', 'Azed'].slice(0, Number(limit)));
    }
    expect(await found(api, fieldId, { q: 'ze', limit: '1' })).toEqual(['Zed on']);
    expect(await found(api, fieldId, { q: 'zed', include_disabled: 'false' })).toEqual(['Zed on', 'Azed']);
    const all = await found(api, fieldId, { q: 'zed', include_disabled: 'true', limit: '100' });
    // Starting with it, in value order (case-insensitive); then containing it, in creation order.
    const starting = [...disabled.map((d) => d.value), 'Zed on', 'Zed later'].sort((a, b) =>
      a.toLowerCase() < b.toLowerCase() ? -1 : 1,
    );
    expect(all).toEqual([...starting, 'Azed', 'Bzed']);
  });

  it('limits to 20 by default and 100 at most, and refuses bad queries, foreign fields and other scopes', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const names = Array.from({ length: 120 }, (_, i) => `Item ${String(i).padStart(3, '0')}`);
    const { fieldId } = await fieldWith(
      api,
      names.map((value) => ({ value })),
    );
    expect(await found(api, fieldId, { q: 'item' })).toEqual(names.slice(0, 20));
    expect(await found(api, fieldId, { q: 'item', limit: '100' })).toEqual(names.slice(0, 100));
    expect(await found(api, fieldId, { q: 'tem 11' })).toEqual(names.slice(110, 120));
    const bad = async (query: Query) => {
      const res = await api.get(searchUrl(fieldId), query);
      return [res.status, res.body.error_code, res.body.details?.errors?.map((e: { path: string }) => e.path)];
    };
    expect(await bad({ q: 'item', limit: '101' })).toEqual([400, 'INVALID_REQUEST', ['/query/limit']]);
    expect(await bad({ q: 'item', limit: '0' })).toEqual([400, 'INVALID_REQUEST', ['/query/limit']]);
    expect(await bad({})).toEqual([400, 'INVALID_REQUEST', ['/query/q']]);
    expect(await bad({ q: '' })).toEqual([400, 'INVALID_REQUEST', ['/query/q']]);
    expect(await bad({ q: 'item', include_disabled: 'maybe' })).toEqual([
      400,
      'INVALID_REQUEST',
      ['/query/include_disabled'],
    ]);

    const stranger = await t.ctx.as([...ADMIN]);
    for (const id of [fieldId, 'extended_field_missing']) {
      const res = await stranger.get(searchUrl(id), { q: 'item' });
      expect([res.status, res.body]).toEqual([404, errorBody('NOT_FOUND', { details: { field_id: id } })]);
    }
    for (const scope of [
      'field_values.read',
      'field_values.write',
      'accounting.record.review',
      'accounting.record.admin',
    ] as const) {
      const reader = await t.ctx.as([scope], api.accountId);
      expect((await reader.get(searchUrl(fieldId), { q: 'item 000' })).body.items).toHaveLength(1);
    }
    const reader = await t.ctx.as(['fields.read', 'accounting.record.read'], api.accountId);
    expect((await reader.get(searchUrl(fieldId), { q: 'item' })).status).toBe(403);
  });

  it('finds the few matching values of a field of 2,100', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const zebras = new Set([0, 1050, 2099]);
    const items = Array.from({ length: 2100 }, (_, i) =>
      zebras.has(i)
        ? { value: `Zebra ${i}`, remote_id: `Z-${i}` }
        : { value: `Account ${String(i).padStart(4, '0')}`, remote_id: `ACC-${i}` },
    );
    const { fieldId } = await fieldWith(api, items);
    expect(await found(api, fieldId, { q: 'zebra' })).toEqual(['Zebra 0', 'Zebra 1050', 'Zebra 2099']);
    expect(await found(api, fieldId, { q: 'EBR' })).toEqual(['Zebra 0', 'Zebra 1050', 'Zebra 2099']);
    expect(await found(api, fieldId, { q: 'z-10' })).toEqual(['Zebra 1050']);
    expect(await found(api, fieldId, { q: 'nt 1234' })).toEqual(['Account 1234']);
    expect(await found(api, fieldId, { q: 'acc-2099' })).toEqual([]);
    const remote = items.filter((v) => v.remote_id.toLowerCase().includes('acc-20')).map((v) => v.value);
    expect(remote.length).toBeGreaterThan(100);
    expect(await found(api, fieldId, { q: 'acc-20', limit: '100' })).toEqual(remote.slice(0, 100));
    const accounts = items.filter((v) => !v.value.startsWith('Zebra')).map((v) => v.value);
    expect(await found(api, fieldId, { q: 'a', limit: '100' })).toEqual(accounts.slice(0, 100));
  });
});

/** Values of one field that renames, deletions and a deleted field leave to search; ids by name. */
async function changing(ctx: TestContext) {
  const api = await ctx.as([...ADMIN]);
  const { fieldId, values } = await fieldWith(api, [
    { value: 'Quartz', remote_id: 'Q-1' },
    { value: 'Basalt', remote_id: 'B-1' },
    { value: 'Granite', remote_id: 'G-1' },
    { value: 'Slate', remote_id: 'S-9' },
    { value: 'Pumice', remote_id: 'P-4' },
  ]);
  const id = (name: string) => values.find((v) => v.value === name)!.svc_id;
  return { api, fieldId, id };
}

/** Sets a value's remote_id in the database (the API has no operation for it; the index must follow anyway). */
async function setRemoteId(ctx: TestContext, svcId: string, remoteId: string) {
  await ctx.db.direct.updateTable('field_values').set({ remote_id: remoteId }).where('svc_id', '=', svcId).execute();
}

describeEachDialect('field value search: changes', (t) => {
  it('reflects renames, remote_id changes, deletions of values and of the field at once', async () => {
    const { api, fieldId, id } = await changing(t.ctx);
    const renamed = await api.put(valuesUrl(fieldId), {
      items: [{ svc_id: id('Basalt'), data: { value: 'Obsidian' } }],
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await found(api, fieldId, { q: 'basalt' })).toEqual([]);
    expect(await found(api, fieldId, { q: 'sidi' })).toEqual(['Obsidian']);
    expect(await found(api, fieldId, { q: 'b-1' })).toEqual(['Obsidian']);
    await setRemoteId(t.ctx, id('Granite'), 'ZX-7');
    expect(await found(api, fieldId, { q: 'g-1' })).toEqual([]);
    expect(await found(api, fieldId, { q: 'zx-7' })).toEqual(['Granite']);
    // The last value (the greatest rowid, which SQLite gives again) deleted, then a new one.
    const deleted = await api.delete(valuesUrl(fieldId), {
      items: [{ svc_id: id('Slate') }, { svc_id: id('Pumice') }],
    });
    expect(deleted.status, deleted.text).toBe(200);
    await api.newValues(fieldId, [{ value: 'Marble', remote_id: 'M-2' }]);
    for (const q of ['slate', 's-9', 'pumice', 'p-4']) expect(await found(api, fieldId, { q })).toEqual([]);
    expect(await found(api, fieldId, { q: 'marb' })).toEqual(['Marble']);
    expect(await found(api, fieldId, { q: 'm-2' })).toEqual(['Marble']);

    const other = await fieldWith(api, [{ value: 'Quartz', remote_id: 'Q-1' }]);
    expect((await api.delete(`/v1/fields/${fieldId}`)).status).toBe(200);
    const gone = await api.get(searchUrl(fieldId), { q: 'quartz' });
    expect([gone.status, gone.body]).toEqual([404, errorBody('NOT_FOUND', { details: { field_id: fieldId } })]);
    expect(await found(api, other.fieldId, { q: 'quartz' })).toEqual(['Quartz']);
  });
});

/** The rows of the FTS5 index matching `text`, and its integrity check against field_values (SQLite only). */
async function indexed(ctx: TestContext, text: string): Promise<number[]> {
  const rows = await sql<{ rowid: number }>`
    select rowid from field_values_search where field_values_search match ${`"${text}"`} order by rowid`.execute(
    ctx.db.direct,
  );
  await sql`insert into field_values_search (field_values_search) values ('integrity-check')`.execute(ctx.db.direct);
  return rows.rows.map((r) => r.rowid);
}

const rowids = async (ctx: TestContext) =>
  (
    await sql<{ rowid: number; svc_id: string }>`select rowid, svc_id from field_values order by rowid`.execute(
      ctx.db.direct,
    )
  ).rows;

describeEachDialect(
  'field value search: the SQLite trigram index',
  (t) => {
    it('keeps no entry of a deleted value or field', async () => {
      const { api, fieldId, id } = await changing(t.ctx);
      const quartz = await indexed(t.ctx, 'Quartz');
      expect(quartz).toHaveLength(1);
      await api.delete(valuesUrl(fieldId), { items: [{ svc_id: id('Slate') }] });
      expect(await indexed(t.ctx, 'Slate')).toEqual([]);
      await api.put(valuesUrl(fieldId), { items: [{ svc_id: id('Basalt'), data: { value: 'Obsidian' } }] });
      expect(await indexed(t.ctx, 'Basalt')).toEqual([]);
      expect(await indexed(t.ctx, 'B-1')).toHaveLength(1);
      expect((await api.delete(`/v1/fields/${fieldId}`)).status).toBe(200);
      for (const text of ['Quartz', 'Obsidian', 'Granite', 'Pumice', 'P-4'])
        expect(await indexed(t.ctx, text)).toEqual([]);
    });

    it('answers exactly the right values after VACUUM, which keeps field_values rowids, and keeps indexing after it', async () => {
      const api = await t.ctx.as([...ADMIN]);
      const names = Array.from({ length: 60 }, (_, i) => `Rock ${String(i).padStart(2, '0')}`);
      const { fieldId, values } = await fieldWith(
        api,
        names.map((value, i) => ({ value, remote_id: `R-${i}` })),
      );
      // Gaps in the rowids (every third value, and the last), renames and remote_id changes before VACUUM.
      const dropped = values.filter((_, i) => i % 3 === 0 || i === 59);
      await api.delete(valuesUrl(fieldId), { items: dropped.map((v) => ({ svc_id: v.svc_id })) });
      await api.put(valuesUrl(fieldId), { items: [{ svc_id: values[1]!.svc_id, data: { value: 'Gneiss 01' } }] });
      await setRemoteId(t.ctx, values[2]!.svc_id, 'X-02');
      const queries: Query[] = ['rock', 'roc', 'ock 4', 'r-1', 'gneiss', 'x-02', 'r-2', 'r-59', 'rock 00'].map((q) => ({
        q,
        limit: '100',
      }));
      const before = [];
      for (const query of queries) before.push(await found(api, fieldId, query));
      const kept = names.filter((_, i) => i % 3 !== 0 && i !== 59 && i !== 1);
      expect(before[0]).toEqual(kept);
      expect(before[4]).toEqual(['Gneiss 01']);
      expect(before[5]).toEqual(['Rock 02']);
      const rowsBefore = await rowids(t.ctx);

      await sql`vacuum`.execute(t.ctx.db.direct);
      expect(await rowids(t.ctx)).toEqual(rowsBefore);
      expect(await indexed(t.ctx, 'Rock')).toHaveLength(kept.length);
      const after = [];
      for (const query of queries) after.push(await found(api, fieldId, query));
      expect(after).toEqual(before);

      // And the triggers go on keeping the index.
      await api.newValues(fieldId, [{ value: 'Rock 60', remote_id: 'R-60' }]);
      await api.put(valuesUrl(fieldId), { items: [{ svc_id: values[4]!.svc_id, data: { value: 'Shale 04' } }] });
      await api.delete(valuesUrl(fieldId), { items: [{ svc_id: values[5]!.svc_id }] });
      expect(await found(api, fieldId, { q: 'rock', limit: '100' })).toEqual([
        ...kept.filter((n) => n !== 'Rock 04' && n !== 'Rock 05'),
        'Rock 60',
      ]);
      expect(await found(api, fieldId, { q: 'hale' })).toEqual(['Shale 04']);
      expect(await indexed(t.ctx, 'Rock 05')).toEqual([]);
    });
  },
  {},
  { only: 'sqlite' },
);
