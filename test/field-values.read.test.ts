import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { valuesUrl } from './support/field-values.js';

type Page = { status: number; body: { items: { svc_id: string }[]; next_cursor: string | null } };
const idsOf = (page: Page) => page.body.items.map((v) => v.svc_id);

describeEachDialect('field values: get and list', (t) => {
  it('gets one value; 404 for a value of another field, another account or a missing field', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const otherField = await api.newField({ name: 'Other' });
    const [value] = await api.newValues(fieldId, [{ value: 'Sales', remote_id: 'R' }]);

    const reader = await t.ctx.as(['field_values.read'], api.accountId);
    const got = await reader.get(`${valuesUrl(fieldId)}/${value.svc_id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(value);

    const wrongField = await api.get(`${valuesUrl(otherField)}/${value.svc_id}`);
    expect(wrongField.status).toBe(404);
    expect(wrongField.body).toEqual(
      errorBody('NOT_FOUND', {
        details: { field_id: otherField, svc_id: value.svc_id },
      }),
    );
    const stranger = await t.ctx.as(['field_values.read']);
    const foreign = await stranger.get(`${valuesUrl(fieldId)}/${value.svc_id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.message).toBe(`Field ${fieldId} not found.`);
    expect((await api.get(`${valuesUrl('extended_field_nope')}/${value.svc_id}`)).status).toBe(404);

    const noScope = await t.ctx.as(['fields.read'], api.accountId);
    expect((await noScope.get(`${valuesUrl(fieldId)}/${value.svc_id}`)).status).toBe(403);
    expect((await noScope.get(valuesUrl(fieldId))).status).toBe(403);
  });

  it('lists in creation order with filters that each match any entry and all apply together', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const v = await api.newValues(fieldId, [
      { value: 'A', remote_id: 'r0', value_id: 'i0' },
      { value: 'B', remote_id: 'r1', value_id: 'i1' },
      { value: 'A', remote_id: 'r2' },
      { value: 'C' },
      { value: 'A', value_id: 'i4' },
    ]);
    const ids = v.map((x) => x.svc_id as string);
    const other = await api.newField({ name: 'Other' });
    await api.newValues(other, [{ value: 'A', remote_id: 'r0' }]);

    const all = await api.get(valuesUrl(fieldId));
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ items: v, next_cursor: null });

    const list = async (query: Record<string, string | string[]>) =>
      idsOf((await api.get(valuesUrl(fieldId), query)) as Page);
    expect(await list({ value: 'A' })).toEqual([ids[0], ids[2], ids[4]]);
    expect(await list({ value: 'a' })).toEqual([]);
    expect(await list({ 'remote_id[]': ['r2', 'r0', 'nope'] })).toEqual([ids[0], ids[2]]);
    expect(await list({ 'remote_id[]': 'r1' })).toEqual([ids[1]]);
    expect(await list({ 'value_id[]': ['i4', 'i1'] })).toEqual([ids[1], ids[4]]);
    expect(await list({ 'svc_id[]': [ids[3]!, ids[0]!] })).toEqual([ids[0], ids[3]]);
    expect(await list({ 'remote_id[]': ['r0', 'r1', 'r2'], value: 'A' })).toEqual([ids[0], ids[2]]);
    expect(await list({ 'remote_id[]': ['r0', 'r1'], 'value_id[]': ['i1', 'i4'] })).toEqual([ids[1]]);
    expect(await list({ 'svc_id[]': ids[3]!, value: 'A' })).toEqual([]);
  });

  it('validates limit and answers 404 for a field of another account', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    await api.newValues(fieldId, [{ value: 'A' }]);
    for (const limit of ['0', '1001', 'x']) {
      const res = await api.get(valuesUrl(fieldId), { limit });
      expect(res.status).toBe(400);
      expect(res.body.error_code).toBe('INVALID_REQUEST');
    }
    expect((await api.get(valuesUrl(fieldId), { limit: '1001' })).body.details.errors).toEqual([
      { path: '/query/limit', message: expect.any(String) },
    ]);
    expect((await api.get(valuesUrl(fieldId), { limit: '1000' })).body.items).toHaveLength(1);

    const stranger = await t.ctx.as(['field_values.read']);
    const res = await stranger.get(valuesUrl(fieldId));
    expect(res.status).toBe(404);
    expect(res.body.details).toEqual({ field_id: fieldId });
  });

  it('returns every value exactly once across pages while values are created and deleted', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const initial = (
      await api.newValues(
        fieldId,
        Array.from({ length: 10 }, (_, i) => ({ value: `v${i}`, remote_id: `r${i}` })),
      )
    ).map((v) => v.svc_id as string);

    const seen: string[] = [];
    const added: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const res: Page = await api.get(valuesUrl(fieldId), { limit: '3', ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      seen.push(...idsOf(res));
      cursor = res.body.next_cursor;
      if (page === 0) {
        // delete an unseen value and one already seen, and add two at the end
        await api.delete(valuesUrl(fieldId), { items: [{ remote_id: 'r5' }, { svc_id: initial[0] }] });
        added.push(...(await api.newValues(fieldId, [{ value: 'new1' }, { value: 'new2' }])).map((v) => v.svc_id));
      }
      page++;
    } while (cursor);
    const expected = [initial[0], ...initial.slice(1).filter((_, i) => i !== 4), ...added];
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('binds the cursor to the field and the filters', async () => {
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const other = await api.newField({ name: 'Other' });
    await api.newValues(fieldId, [{ value: 'A', remote_id: 'x' }, { value: 'A', remote_id: 'y' }, { value: 'A' }]);
    const first = await api.get(valuesUrl(fieldId), { limit: '1', value: 'A', 'remote_id[]': ['y', 'x'] });
    const cursor: string = first.body.next_cursor;
    expect(cursor).toEqual(expect.any(String));

    // the same filters in another spelling (order, repetition) keep the cursor valid
    const next = await api.get(valuesUrl(fieldId), { limit: '5', value: 'A', 'remote_id[]': ['x', 'y', 'x'], cursor });
    expect(next.status).toBe(200);
    expect(next.body.items).toHaveLength(1);
    expect(next.body.next_cursor).toBeNull();

    const mismatches: Record<string, string | string[]>[] = [
      { value: 'B', 'remote_id[]': ['x', 'y'] },
      { value: 'A' },
      { value: 'A', 'remote_id[]': ['x'] },
      { value: 'A', 'remote_id[]': ['x', 'y'], 'value_id[]': 'z' },
    ];
    for (const query of mismatches) {
      const res = await api.get(valuesUrl(fieldId), { ...query, cursor });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(errorBody('INVALID_CURSOR'));
    }
    const otherField = await api.get(valuesUrl(other), { value: 'A', 'remote_id[]': ['x', 'y'], cursor });
    expect(otherField.body.error_code).toBe('INVALID_CURSOR');
    const sameAccount = await t.ctx.as(['field_values.read'], api.accountId);
    expect((await sameAccount.get(valuesUrl(fieldId), { value: 'A', 'remote_id[]': ['x', 'y'], cursor })).status).toBe(
      200,
    );
  });

  it('writes list pages byte for byte as the values are answered one by one, whatever their text', async () => {
    // SQLite writes list pages itself (json_object); they must equal JSON.stringify of each value's answer.
    const api = await t.ctx.as(['fields.write', 'field_values.write']);
    const fieldId = await api.newField();
    const text = fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 12 });
    const awkward = fc.constantFrom(
      '"',
      '\\',
      '\n\t\r\b\f',
      '\u0001\u001f\u007f',
      '\u2028\u2029',
      '</script>',
      'é漢字😀',
      ' ',
    );
    const item = fc.record(
      {
        value: fc.oneof(text, awkward),
        remote_id: fc.option(fc.oneof(text, awkward), { nil: undefined }),
        is_disabled: fc.boolean(),
      },
      { requiredKeys: ['value', 'is_disabled'] },
    );
    const batches = fc.sample(fc.array(item, { minLength: 1, maxLength: 20 }), { numRuns: 5, seed: 7 });
    const created: { svc_id: string }[] = [];
    let n = 0;
    for (const batch of batches) {
      // remote_ids unique within the field: suffix each with its position
      created.push(
        ...(await api.newValues(
          fieldId,
          batch.map((i) => ({ ...i, ...(i.remote_id === undefined ? {} : { remote_id: `${i.remote_id}#${n++}` }) })),
        )),
      );
    }
    const firstId = created[0]!.svc_id;
    const one = await api.get(`${valuesUrl(fieldId)}/${firstId}`);
    expect(one.status).toBe(200);
    const singles = await Promise.all(
      created.map(async (v) => (await api.get(`${valuesUrl(fieldId)}/${v.svc_id}`)).text),
    );
    const page = await api.get(valuesUrl(fieldId), { limit: '1000' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(page.text).toBe(`{"items":[${singles.join(',')}],"next_cursor":null}`);
    expect(page.body.items).toEqual(created);

    // a page cut short by its limit: the cursor names the page's last value
    const half = Math.floor(created.length / 2);
    const first = await api.get(valuesUrl(fieldId), { limit: String(half) });
    expect(first.text.startsWith(`{"items":[${singles.slice(0, half).join(',')}],"next_cursor":"`)).toBe(true);
    const rest = await api.get(valuesUrl(fieldId), { limit: '1000', cursor: first.body.next_cursor });
    expect(rest.text).toBe(`{"items":[${singles.slice(half).join(',')}],"next_cursor":null}`);
    const empty = await api.get(valuesUrl(fieldId), { value: 'no such value' });
    expect(empty.text).toBe('{"items":[],"next_cursor":null}');
  });
});
