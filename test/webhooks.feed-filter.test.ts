import { expect, it } from 'vitest';
import { ADMIN } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { EVENTS } from './support/webhooks.js';

const READY = 'accounting_record.ready_for_export';
const EXPORTED = 'accounting_record.exported';
const VALUES = 'field_values.changed';
const COMPAT = 'ACCOUNTING_RECORD_READY_FOR_EXPORT';

/** The whole feed, unfiltered, in one page. */
async function everything(api: Api): Promise<any[]> {
  const res = await api.get(EVENTS, { limit: '1000' });
  expect(res.status, res.text).toBe(200);
  return res.body.items;
}

describeEachDialect('the event feed filtered by type', (t) => {
  it('answers only the events of the types asked for, one type or several, in commit order', async () => {
    const api = await t.ctx.as([...ADMIN, 'events.read']);
    const fieldId = await api.newField();
    await api.newValues(fieldId, [{ value: 'Travel' }]);
    const exported = await api.exportedRecord();
    await api.newValues(fieldId, [{ value: 'Meals' }]);
    const all = await everything(api);
    expect(all.map((e) => e.type)).toEqual([VALUES, READY, COMPAT, EXPORTED, VALUES]);

    const one = await api.get(EVENTS, { type: EXPORTED });
    expect([one.status, one.body]).toEqual([
      200,
      { items: [all[3]], has_next_page: false, next_cursor: expect.any(String), has_more: false },
    ]);
    expect(one.body.items[0]).toEqual({
      id: all[3].id,
      type: EXPORTED,
      timestamp: all[3].timestamp,
      account_id: api.accountId,
      data: { object: 'accounting_record', id: exported.id, version: 2 },
    });

    const two = await api.get(EVENTS, { type: [VALUES, COMPAT] });
    expect([two.status, two.body]).toEqual([
      200,
      { items: [all[0], all[2], all[4]], has_next_page: false, next_cursor: expect.any(String), has_more: false },
    ]);

    // Nothing of that type yet: an empty page with a cursor to keep.
    const none = await api.get(EVENTS, { type: 'integration.connected' });
    expect([none.status, none.body]).toEqual([
      200,
      { items: [], has_next_page: false, next_cursor: expect.any(String), has_more: false },
    ]);
  });

  it('pages a filtered feed by cursor, picks up only later events of its types, and binds the cursor to them', async () => {
    const api = await t.ctx.as([...ADMIN, 'events.read']);
    const fieldId = await api.newField();
    for (let i = 0; i < 3; i++) {
      await api.readyRecord();
      await api.newValues(fieldId, [{ value: `v${i}` }]);
    }
    const all = await everything(api);
    const ready = all.filter((e) => e.type === READY);
    expect(ready).toHaveLength(3);

    const first = await api.get(EVENTS, { type: READY, limit: '2' });
    expect([first.status, first.body]).toEqual([
      200,
      { items: ready.slice(0, 2), has_next_page: true, next_cursor: expect.any(String), has_more: true },
    ]);
    // The same types in another order, or repeated, are the same filter.
    const second = await api.get(EVENTS, {
      type: [READY, READY],
      limit: '2',
      cursor: first.body.next_cursor,
    });
    expect([second.status, second.body]).toEqual([
      200,
      { items: ready.slice(2), has_next_page: false, next_cursor: expect.any(String), has_more: false },
    ]);

    // Later: a value batch (not asked for) and a record (asked for); the kept cursor finds exactly the record's.
    await api.newValues(fieldId, [{ value: 'late' }]);
    const late = await api.readyRecord();
    const after = await api.get(EVENTS, { type: READY, cursor: second.body.next_cursor });
    expect(after.status, after.text).toBe(200);
    expect(after.body.items.map((e: any) => [e.type, e.data.id])).toEqual([[READY, late.id]]);
    expect(after.body.has_next_page).toBe(false);

    const mixed = await api.get(EVENTS, { type: [EXPORTED, READY], limit: '1' });
    const reordered = await api.get(EVENTS, { type: [READY, EXPORTED], cursor: mixed.body.next_cursor });
    expect(reordered.status, reordered.text).toBe(200);
    expect(reordered.body.items).toEqual((await everything(api)).filter((e) => e.type === READY).slice(1));

    // A cursor of other types, or of the unfiltered feed, is refused; so is an unfiltered ask with a filtered one.
    for (const [type, cursor] of [
      [VALUES, first.body.next_cursor],
      [undefined, first.body.next_cursor],
      [READY, (await api.get(EVENTS, { limit: '1' })).body.next_cursor],
    ] as const) {
      const res = await api.get(EVENTS, { ...(type ? { type } : {}), cursor });
      expect([res.status, res.body]).toEqual([
        400,
        errorBody('INVALID_CURSOR', { message: expect.any(String), details: null }),
      ]);
    }
  });

  it('refuses an unknown type, naming each one and the types there are', async () => {
    const api = await t.ctx.as(['events.read']);
    const res = await api.get(EVENTS, { type: [READY, 'record.approved', 'nope'] });
    const types = [
      READY,
      EXPORTED,
      'accounting_record.export_failed',
      'accounting_record.reopened',
      'accounting_record.receipt_attached',
      VALUES,
      'integration.connected',
      'integration.disconnected',
      COMPAT,
    ].join(', ');
    expect([res.status, res.body]).toEqual([
      400,
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            { path: '/query/type/1', message: `must be one of: ${types} (got "record.approved")` },
            { path: '/query/type/2', message: `must be one of: ${types} (got "nope")` },
          ],
        },
      }),
    ]);
    const empty = await api.get(EVENTS, { type: '' });
    expect([empty.status, empty.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
  });
});
