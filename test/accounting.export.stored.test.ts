import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { ADMIN, EXPORT_RESULTS } from './support/accounting.js';
import { errorBody } from './support/expect.js';
import { storedRecordRows } from './support/stored.js';
import type { TestContext } from './support/context.js';

/** Text that quoting could get wrong: JSON and array-literal specials, a word that reads as NULL, and non-ASCII. */
const AWKWARD = 'He said "no", {a,b} \\ NULL\n\té ✓ 😀';

const storedHistory = (ctx: TestContext, accountId: string) =>
  ctx.db.direct
    .selectFrom('accounting_record_events')
    .select(['record_id', 'version', 'type', 'actor_type', 'actor_id', 'occurred_at', 'changes_json'])
    .where('account_id', '=', accountId)
    .orderBy('occurred_at')
    .orderBy('record_id')
    .execute();

const storedAccountEvents = (ctx: TestContext, accountId: string) =>
  ctx.db.direct
    .selectFrom('account_events')
    .select(['seq', 'type', 'occurred_at', 'data_json'])
    .where('account_id', '=', accountId)
    .orderBy('seq')
    .execute();

/**
 * What one report of export results stores, row by row: each record's new state, version and last result, its
 * history event and its account event (the webhook outbox), in request order under consecutive record-clock values;
 * and, for a refused report, nothing at all.
 */
describeEachDialect('accounting export results: what is stored', (t) => {
  it('a mixed batch: each record, history event and account event exactly, in request order', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const records = [];
    for (let i = 0; i < 5; i++) records.push(await api.readyRecord());
    const [a, b, c, d, e] = records.map((r) => r.id as string) as [string, string, string, string, string];
    const historyBefore = (await storedHistory(t.ctx, api.accountId)).length;
    const seqBefore = (await storedAccountEvents(t.ctx, api.accountId)).length;
    const results = [
      { accounting_record_id: d, failure: { error_message: AWKWARD } },
      { accounting_record_id: a, success: { reference_id: AWKWARD, deep_link_url: 'https://erp.example/t?a=1&b="2"' } },
      { accounting_record_id: e, success: {} },
      { accounting_record_id: b, failure: { error_message: 'NULL' } },
      { accounting_record_id: c, success: { reference_id: 'NULL' } },
    ];
    const res = await api.post(EXPORT_RESULTS, { results });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated_accounting_record_ids: [d, a, e, b, c] });

    const rows = new Map((await storedRecordRows(t.ctx, api.accountId)).map((r) => [r.id, r]));
    const at = (id: string) => Number(rows.get(id)!.updated_at);
    const first = at(d);
    // Consecutive record-clock values in request order.
    expect([d, a, e, b, c].map(at)).toEqual([0, 1, 2, 3, 4].map((i) => first + i));
    const success = (ref: string | null, link: string | null) => ({
      status: 'SUCCESS',
      reference_id: ref,
      deep_link_url: link,
      error_message: null,
    });
    const failure = (message: string) => ({
      status: 'FAILURE',
      reference_id: null,
      deep_link_url: null,
      error_message: message,
    });
    const expected: [string, string, object][] = [
      [d, 'REVIEW', failure(AWKWARD)],
      [a, 'EXPORTED', success(AWKWARD, 'https://erp.example/t?a=1&b="2"')],
      [e, 'EXPORTED', success(null, null)],
      [b, 'REVIEW', failure('NULL')],
      [c, 'EXPORTED', success('NULL', null)],
    ];
    for (const [id, status, result] of expected) {
      const row = rows.get(id)!;
      expect(row.review_status).toBe(status);
      expect(Number(row.version)).toBe(2);
      // The stored text exactly: its members in this order, reported_at the record's updated_at.
      expect(row.last_export_json).toBe(JSON.stringify({ ...result, reported_at: at(id) }));
    }

    const history = (await storedHistory(t.ctx, api.accountId)).slice(historyBefore);
    const move = (to: string) => ({ from: 'READY_FOR_EXPORT', to });
    expect(history.map((h) => ({ ...h, version: Number(h.version), occurred_at: Number(h.occurred_at) }))).toEqual(
      [
        [d, 'EXPORT_FAILED', { review_status: move('REVIEW'), error_message: AWKWARD }],
        [
          a,
          'EXPORT_SUCCEEDED',
          { review_status: move('EXPORTED'), reference_id: AWKWARD, deep_link_url: 'https://erp.example/t?a=1&b="2"' },
        ],
        [e, 'EXPORT_SUCCEEDED', { review_status: move('EXPORTED'), reference_id: null, deep_link_url: null }],
        [b, 'EXPORT_FAILED', { review_status: move('REVIEW'), error_message: 'NULL' }],
        [c, 'EXPORT_SUCCEEDED', { review_status: move('EXPORTED'), reference_id: 'NULL', deep_link_url: null }],
      ].map(([id, type, changes]) => ({
        record_id: id,
        version: 2,
        type,
        actor_type: 'client',
        actor_id: api.clientId,
        occurred_at: at(id as string),
        changes_json: JSON.stringify(changes),
      })),
    );

    const events = (await storedAccountEvents(t.ctx, api.accountId)).slice(seqBefore);
    const firstSeq = Number(events[0]!.seq);
    expect(events.map((ev) => ({ ...ev, seq: Number(ev.seq), occurred_at: Number(ev.occurred_at) }))).toEqual(
      [
        [d, 'accounting_record.export_failed', { error_message: AWKWARD }],
        [a, 'accounting_record.exported', {}],
        [e, 'accounting_record.exported', {}],
        [b, 'accounting_record.export_failed', { error_message: 'NULL' }],
        [c, 'accounting_record.exported', {}],
      ].map(([id, type, extra], i) => ({
        seq: firstSeq + i,
        type,
        occurred_at: at(id as string),
        data_json: JSON.stringify({ object: 'accounting_record', id, version: 2, ...(extra as object) }),
      })),
    );
  });

  it('a refused batch (one record not ready among successes and failures) stores no row of any kind', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const ready = await api.readyRecord();
    const other = await api.readyRecord();
    const review = await api.newRecord({ review_status: 'REVIEW' });
    const before = {
      records: await storedRecordRows(t.ctx, api.accountId),
      history: await storedHistory(t.ctx, api.accountId),
      events: await storedAccountEvents(t.ctx, api.accountId),
    };
    const res = await api.post(EXPORT_RESULTS, {
      results: [
        { accounting_record_id: ready.id, success: { reference_id: 'r1' } },
        { accounting_record_id: review.id, success: {} },
        { accounting_record_id: other.id, failure: { error_message: AWKWARD } },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(
      errorBody('ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT', {
        details: { not_ready_for_export_accounting_record_ids: [review.id] },
      }),
    );
    expect({
      records: await storedRecordRows(t.ctx, api.accountId),
      history: await storedHistory(t.ctx, api.accountId),
      events: await storedAccountEvents(t.ctx, api.accountId),
    }).toEqual(before);
  });
});
