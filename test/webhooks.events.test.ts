import { sql, type Kysely } from 'kysely';
import { expect, it } from 'vitest';
import { ADMIN, EXPORT_RESULTS, reviewUrl } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { valuesUrl } from './support/field-values.js';
import { EVENT_ID, EVENTS } from './support/webhooks.js';

const FEED = ['events.read'] as const;

/** Every event of the account, page after page, as the feed answers them. */
async function allEvents(api: Api, limit = 1000): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await api.get(EVENTS, { limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(res.status, res.text).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.next_cursor;
    if (!res.body.has_next_page) return items;
  }
}

const brief = (e: any) => ({ type: e.type, ...e.data });

async function storedEvents(ctx: TestContext, accountId: string) {
  return (ctx.db.direct as Kysely<any>)
    .selectFrom('account_events')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('seq')
    .execute();
}

/** Makes every insert into `table` of the account fail, as a fault in the middle of a transaction. */
async function failInserts(ctx: TestContext, table: string, accountId: string) {
  const db = ctx.db.direct as Kysely<any>;
  const name = `fail_${table}_${accountId.replace(/\W/g, '')}`;
  if (ctx.dialect === 'sqlite') {
    await sql
      .raw(
        `create trigger ${name} before insert on ${table} when new.account_id = '${accountId}' begin select raise(abort, 'injected fault'); end`,
      )
      .execute(db);
  } else {
    await sql
      .raw(
        `create function ${name}() returns trigger language plpgsql as $$ begin if new.account_id = '${accountId}' then raise exception 'injected fault'; end if; return new; end $$;
         create trigger ${name} before insert on ${table} for each row execute function ${name}()`,
      )
      .execute(db);
  }
  return async () => {
    await sql.raw(`drop trigger ${name}${ctx.dialect === 'postgres' ? ` on ${table}` : ''}`).execute(db);
    if (ctx.dialect === 'postgres') await sql.raw(`drop function ${name}()`).execute(db);
  };
}

describeEachDialect('account events: the outbox and the feed', (t) => {
  it('the maintenance sweep deletes events past the 30-day retention and keeps the others', async () => {
    const { webhooksService } = await import('../src/modules/webhooks/webhooks.service.js');
    const api = await t.ctx.as([...ADMIN, 'events.read']);
    await api.newRecords([{ review_status: 'READY_FOR_EXPORT' }, { review_status: 'READY_FOR_EXPORT' }]);
    const stored = await storedEvents(t.ctx, api.accountId);
    expect(stored.length).toBeGreaterThan(1);
    const old = stored[0]!;
    const day = 86_400_000_000;
    await (t.ctx.db.direct as Kysely<any>)
      .updateTable('account_events')
      .set({ occurred_at: Date.now() * 1000 - 31 * day })
      .where('account_id', '=', api.accountId)
      .where('event_id', '=', old.event_id)
      .execute();
    expect(await webhooksService.deleteExpired(t.ctx.db, Date.now() * 1000)).toBeGreaterThanOrEqual(1);
    expect((await storedEvents(t.ctx, api.accountId)).map((e: any) => e.event_id)).toEqual(
      stored.slice(1).map((e: any) => e.event_id),
    );
  });

  it('announces each record change that matters, in commit order, with the record id and the version it produced', async () => {
    const api = await t.ctx.as([...ADMIN, 'events.read']);
    const ready = await api.readyRecord();
    const draft = await api.newRecord({ review_status: 'REVIEW' });
    expect((await api.post(reviewUrl(draft.id), { review_status: 'READY_FOR_EXPORT' })).status).toBe(200);
    const report = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: ready.id, success: { reference_id: 'JE-1' } },
        { accounting_record_id: draft.id, failure: { error_message: 'Period closed' } },
      ],
    });
    expect(report.status, report.text).toBe(200);
    expect((await api.post(reviewUrl(ready.id), { review_status: 'REVIEW' })).status).toBe(200);
    // Changes that announce nothing: a record made for review, a move back from READY_FOR_EXPORT.
    await api.newRecord();

    const events = await allEvents(api);
    expect(events.map(brief)).toEqual([
      { type: 'accounting_record.ready_for_export', object: 'accounting_record', id: ready.id, version: 1 },
      {
        type: 'ACCOUNTING_RECORD_READY_FOR_EXPORT',
        event_type: 'ACCOUNTING_RECORD_READY_FOR_EXPORT',
        accounting_record_ids: [ready.id],
        company_id: api.accountId,
      },
      { type: 'accounting_record.ready_for_export', object: 'accounting_record', id: draft.id, version: 2 },
      {
        type: 'ACCOUNTING_RECORD_READY_FOR_EXPORT',
        event_type: 'ACCOUNTING_RECORD_READY_FOR_EXPORT',
        accounting_record_ids: [draft.id],
        company_id: api.accountId,
      },
      { type: 'accounting_record.exported', object: 'accounting_record', id: ready.id, version: 2 },
      {
        type: 'accounting_record.export_failed',
        object: 'accounting_record',
        id: draft.id,
        version: 3,
        error_message: 'Period closed',
      },
      { type: 'accounting_record.reopened', object: 'accounting_record', id: ready.id, version: 3 },
    ]);
    for (const e of events) {
      expect(Object.keys(e)).toEqual(['id', 'type', 'timestamp', 'account_id', 'data']);
      expect(e).toMatchObject({ id: expect.stringMatching(EVENT_ID), timestamp: expect.stringMatching(ISO_MICROS) });
      expect(e.account_id).toBe(api.accountId);
    }
    // The record events' time is the change's: the record's updated_at of that version.
    const exported = await api.get(`/v3/accounting/records/${draft.id}`);
    expect(events[5].timestamp).toBe(exported.body.updated_at);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('announces a bulk move to READY_FOR_EXPORT per record and once in the compatible form, listing them all', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.record.review', 'events.read']);
    const records = await api.newRecords([{}, {}, {}].map(() => ({ review_status: 'REVIEW' })));
    const moved = await api.post('/internal/v1/accounting/records/review-status', {
      review_status: 'READY_FOR_EXPORT',
      records: records.map((r) => ({ id: r.id })),
    });
    expect(moved.status, moved.text).toBe(200);
    const events = await allEvents(api);
    expect(events.map((e) => [e.type, e.data.id ?? e.data.accounting_record_ids])).toEqual([
      ...records.map((r) => ['accounting_record.ready_for_export', r.id]),
      ['ACCOUNTING_RECORD_READY_FOR_EXPORT', records.map((r) => r.id)],
    ]);
  });

  it("summarises each field-value batch in one event, with the field and the values' ids", async () => {
    const api = await t.ctx.as([...ADMIN, 'events.read']);
    const fieldId = await api.newField();
    const created = await api.newValues(fieldId, [{ value: 'A', remote_id: 'a' }, { value: 'B' }, { value: 'C' }]);
    const ids = created.map((v) => v.svc_id);
    expect((await api.put(valuesUrl(fieldId), { items: [{ remote_id: 'a', data: { value: 'A2' } }] })).status).toBe(
      200,
    );
    expect((await api.delete(valuesUrl(fieldId), { items: [{ svc_id: ids[1] }, { svc_id: ids[2] }] })).status).toBe(
      200,
    );
    // A refused batch announces nothing.
    expect((await api.delete(valuesUrl(fieldId), { items: [{ svc_id: 'efo_unknown' }] })).status).toBe(404);
    expect((await allEvents(api)).map((e) => e.data)).toEqual([
      { object: 'field', id: fieldId, operation: 'CREATED', count: 3, svc_ids: ids },
      { object: 'field', id: fieldId, operation: 'UPDATED', count: 1, svc_ids: [ids[0]] },
      { object: 'field', id: fieldId, operation: 'DELETED', count: 2, svc_ids: [ids[1], ids[2]] },
    ]);
  });

  it('writes no event for a refused change, and no change without its event (a fault inserting the event)', async () => {
    const api = await t.ctx.as([...ADMIN, 'events.read']);
    const record = await api.newRecord({ review_status: 'REVIEW' });
    // Refused: not ready (422), nothing changes, nothing is announced.
    expect(
      (await api.post(EXPORT_RESULTS, { results: [{ accounting_record_id: record.id, success: {} }] })).status,
    ).toBe(422);
    expect(await storedEvents(t.ctx, api.accountId)).toEqual([]);

    // The event's insert fails: the move it announces rolls back with it.
    const restore = await failInserts(t.ctx, 'account_events', api.accountId);
    const failed = await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' });
    expect([failed.status, failed.body]).toEqual([500, errorBody('INTERNAL_ERROR')]);
    const after = await api.get(`/v3/accounting/records/${record.id}`);
    expect([after.body.review_status, after.body.version]).toEqual(['REVIEW', 1]);
    const history = await api.get(`/internal/v1/accounting/records/${record.id}/history`);
    expect(history.body.items.map((e: any) => e.type)).toEqual(['INGESTED']);
    await restore();

    // A fault after the event is written (storing the Idempotency-Key's answer): neither the move nor its event.
    const restoreKeys = await failInserts(t.ctx, 'idempotency_keys', api.accountId);
    const keyed = await api.post(
      reviewUrl(record.id),
      { review_status: 'READY_FOR_EXPORT' },
      { 'idempotency-key': 'k-1' },
    );
    expect(keyed.status).toBe(500);
    expect((await api.get(`/v3/accounting/records/${record.id}`)).body.version).toBe(1);
    expect(await storedEvents(t.ctx, api.accountId)).toEqual([]);
    await restoreKeys();

    expect((await api.post(reviewUrl(record.id), { review_status: 'READY_FOR_EXPORT' })).status).toBe(200);
    const stored = await storedEvents(t.ctx, api.accountId);
    expect(stored.map((e) => [Number(e.seq), e.type])).toEqual([
      [1, 'accounting_record.ready_for_export'],
      [2, 'ACCOUNTING_RECORD_READY_FOR_EXPORT'],
    ]);
  });

  it('pages the feed by cursor, never ends it, and picks up what came after the last page', async () => {
    const api = await t.ctx.as([...ADMIN, 'events.read']);
    const fieldId = await api.newField();
    for (let i = 0; i < 5; i++) await api.newValues(fieldId, [{ value: `v${i}` }]);
    const first = await api.get(EVENTS, { limit: '2' });
    expect(first.status).toBe(200);
    // has_more is has_next_page's deprecated name, answered alike for now (docs/design.md, "Pagination").
    expect(Object.keys(first.body)).toEqual(['items', 'has_next_page', 'next_cursor', 'has_more']);
    expect([first.body.items.length, first.body.has_next_page, first.body.has_more]).toEqual([2, true, true]);
    const second = await api.get(EVENTS, { limit: '2', cursor: first.body.next_cursor });
    const third = await api.get(EVENTS, { limit: '2', cursor: second.body.next_cursor });
    expect([third.body.items.length, third.body.has_next_page, third.body.has_more]).toEqual([1, false, false]);
    const all = [...first.body.items, ...second.body.items, ...third.body.items];
    expect(all.map((e) => e.data.count)).toEqual([1, 1, 1, 1, 1]);
    expect(all).toEqual(await allEvents(api));

    // At the end: nothing new yet, a cursor to keep; then an event arrives and that cursor finds exactly it.
    const end = await api.get(EVENTS, { cursor: third.body.next_cursor });
    expect([end.body.items, end.body.has_next_page, typeof end.body.next_cursor]).toEqual([[], false, 'string']);
    await api.newValues(fieldId, [{ value: 'late' }]);
    const late = await api.get(EVENTS, { cursor: end.body.next_cursor });
    expect(late.body.items.map((e: any) => e.data.count)).toEqual([1]);
    expect(late.body.items[0].id).not.toBe(all.at(-1).id);

    // One character in its middle changed (always to another; the last ones may carry only padding bits).
    const cursor: string = first.body.next_cursor;
    const at = Math.floor(cursor.length / 2);
    const forged = `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
    const tampered = await api.get(EVENTS, { cursor: forged });
    expect([tampered.status, tampered.body]).toEqual([400, errorBody('INVALID_CURSOR')]);
    expect((await api.get(EVENTS, { limit: '1001' })).status).toBe(400);
  });

  it("shows an account its own events only; another account's cursor is refused", async () => {
    const a = await t.ctx.as([...ADMIN, 'events.read']);
    const b = await t.ctx.as(FEED);
    await a.readyRecord();
    const aPage = await a.get(EVENTS, { limit: '1' });
    expect(aPage.body.items).toHaveLength(1);
    expect((await b.get(EVENTS)).body).toEqual({
      items: [],
      has_next_page: false,
      next_cursor: expect.any(String),
      has_more: false,
    });
    const foreign = await b.get(EVENTS, { cursor: aPage.body.next_cursor });
    expect([foreign.status, foreign.body.error_code]).toEqual([400, 'INVALID_CURSOR']);
  });

  it('serves the feed to events.read, webhooks.read and webhooks.write, and refuses other scopes', async () => {
    for (const scope of ['events.read', 'webhooks.read', 'webhooks.write'] as const) {
      expect((await (await t.ctx.as([scope])).get(EVENTS)).status).toBe(200);
    }
    const other = await (await t.ctx.as(['accounting.record.read'])).get(EVENTS);
    expect(other.status).toBe(403);
    expect(other.body.details).toEqual({ required_scopes: ['events.read', 'webhooks.read', 'webhooks.write'] });
  });
});
