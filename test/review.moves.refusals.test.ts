import { sql, type RawBuilder } from 'kysely';
import { expect, it } from 'vitest';
import { reviewUrl } from './support/accounting.js';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { BULK, REQUIRED, REVIEWER } from './support/review.js';
import { storedRecords } from './support/stored.js';

/** Everything a refused move must leave as it was: the account's records, their events and the kept counts. */
async function snapshot(ctx: TestContext, accountId: string) {
  const rows = async (query: RawBuilder<any>) => (await query.execute(ctx.db.direct)).rows;
  return {
    records: await storedRecords(ctx, accountId),
    events: await rows(sql`select * from accounting_record_events where account_id = ${accountId} order by 2, 3`),
    counts: await rows(sql`select * from account_record_counts where account_id = ${accountId} order by 2, 3`),
  };
}

describeEachDialect('review: bulk moves', (t) => {
  it('refuses the whole batch, listing every failing record with its own code; the answer is the gravest', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const stranger = await t.ctx.as([...REVIEWER]);
    const gl = await api.newCoding('GL Account', [{ value: '6010 Meals', remote_id: 'GL-6010' }], 'GL');
    const field_id = gl.field.svc_id;
    const glRef = { field_id, svc_id: gl.values[0].svc_id };
    expect((await api.put(REQUIRED, { field_ids: [field_id] })).status).toBe(200);
    const [coded, stale, early, uncoded] = await api.newRecords([
      { review_status: 'REVIEW', lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [glRef] }] },
      { review_status: 'REVIEW' },
      { review_status: 'PREPARE' },
      { review_status: 'REVIEW' },
    ]);
    const theirs = await stranger.newRecord({ review_status: 'REVIEW' });
    const before = await snapshot(t.ctx, api.accountId);
    const theirsBefore = await snapshot(t.ctx, stranger.accountId);

    const problem = {
      missing: (id: string) => ({
        accounting_record_id: id,
        error_code: 'NOT_FOUND',
        message: expect.any(String),
        reason: expect.any(String),
      }),
      stale: {
        accounting_record_id: stale.id,
        error_code: 'VERSION_CONFLICT',
        message: expect.any(String),
        reason: expect.any(String),
        expected_version: 5,
        current_version: 1,
      },
      early: {
        accounting_record_id: early.id,
        error_code: 'INVALID_TRANSITION',
        message: expect.any(String),
        reason: expect.any(String),
        from: 'PREPARE',
        to: 'READY_FOR_EXPORT',
      },
      uncoded: {
        accounting_record_id: uncoded.id,
        error_code: 'CODING_REQUIRED',
        message: expect.any(String),
        reason: expect.any(String),
        lines: [
          { index: 0, line_id: uncoded.line_items[0].id, missing_fields: [{ field_id, field_name: 'GL Account' }] },
        ],
      },
    };
    const records = [
      { id: coded.id, version: 1 },
      { id: 'accr_nope' },
      { id: stale.id, version: 5 },
      { id: theirs.id },
      { id: early.id },
      { id: uncoded.id, version: 1 },
    ];
    const move = (ids: typeof records) => api.post(BULK, { review_status: 'READY_FOR_EXPORT', records: ids });

    const all = await move(records);
    expect([all.status, all.body]).toEqual([
      404,
      errorBody('NOT_FOUND', {
        details: {
          errors: [
            problem.missing('accr_nope'),
            problem.stale,
            problem.missing(theirs.id),
            problem.early,
            problem.uncoded,
          ],
        },
      }),
    ]);
    const found = records.filter((r) => r.id !== 'accr_nope' && r.id !== theirs.id);
    const conflict = await move(found);
    expect([conflict.status, conflict.body]).toEqual([
      409,
      errorBody('VERSION_CONFLICT', { details: { errors: [problem.stale, problem.early, problem.uncoded] } }),
    ]);
    const current = found.filter((r) => r.id !== stale.id);
    const invalid = await move(current);
    expect([invalid.status, invalid.body]).toEqual([
      409,
      errorBody('INVALID_TRANSITION', { details: { errors: [problem.early, problem.uncoded] } }),
    ]);
    const possible = current.filter((r) => r.id !== early.id);
    const required = await move(possible);
    expect([required.status, required.body]).toEqual([
      422,
      errorBody('CODING_REQUIRED', {
        details: { errors: [problem.uncoded] },
      }),
    ]);
    const toExported = await api.post(BULK, { review_status: 'EXPORTED', records: [{ id: coded.id }] });
    expect([toExported.status, toExported.body]).toEqual([
      409,
      errorBody('INVALID_TRANSITION', {
        details: {
          errors: [
            {
              accounting_record_id: coded.id,
              error_code: 'INVALID_TRANSITION',
              message: expect.any(String),
              reason: expect.any(String),
              from: 'REVIEW',
              to: 'EXPORTED',
            },
          ],
        },
      }),
    ]);
    expect(await snapshot(t.ctx, api.accountId)).toEqual(before);
    expect(await snapshot(t.ctx, stranger.accountId)).toEqual(theirsBefore);
  });

  it('a record named twice, no records or more than 1000 → 400, nothing changed; the review scope is needed', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const [a, b] = await api.newRecords([{}, {}]);
    const before = await snapshot(t.ctx, api.accountId);
    const twice = await api.post(BULK, {
      review_status: 'REVIEW',
      records: [{ id: a.id }, { id: b.id }, { id: a.id, version: 1 }, { id: 'accr_nope' }, { id: 'accr_nope' }],
    });
    expect([twice.status, twice.body]).toEqual([
      400,
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            { path: '/records/2/id', message: `names record ${a.id} a second time` },
            { path: '/records/4/id', message: 'names record accr_nope a second time' },
          ],
        },
      }),
    ]);
    const many = Array.from({ length: 1001 }, (_, i) => ({ id: `accr_${i}` }));
    for (const records of [[], many]) {
      const res = await api.post(BULK, { review_status: 'REVIEW', records });
      expect([res.status, res.body.details.errors]).toEqual([400, [{ path: '/records', message: expect.any(String) }]]);
    }
    const writer = await t.ctx.as(['accounting.record.read', 'accounting.record.write'], api.accountId);
    const forbidden = await writer.post(BULK, { review_status: 'REVIEW', records: [{ id: a.id }] });
    expect(forbidden.status).toBe(403);
    // The single move stays the source systems' (admin) operation; the reviewer moves through the bulk move.
    const reviewer = await t.ctx.as(['accounting.record.review'], api.accountId);
    expect((await reviewer.post(reviewUrl(a.id), { review_status: 'REVIEW' })).status).toBe(403);
    expect(await snapshot(t.ctx, api.accountId)).toEqual(before);
  });

  it('concurrent bulk moves of overlapping records: each succeeds whole or changes nothing; a replay moves nothing', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const records = await api.newRecords(Array.from({ length: 15 }, () => ({ review_status: 'REVIEW' })));
    const batch = (from: number, to: string) => ({
      review_status: to,
      records: records.slice(from, from + 10).map((r) => ({ id: r.id, version: 1 })),
    });
    // Any two windows of 10 of the 15 records overlap: exactly one batch can win.
    const batches = [0, 5, 1, 4, 2, 3, 0, 5].map((from, k) => batch(from, k % 2 ? 'PREPARE' : 'READY_FOR_EXPORT'));
    const answers = await Promise.all(batches.map((b) => api.post(BULK, b)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    const winner = batches[answers.findIndex((a) => a.status === 200)]!;
    const won = new Set(winner.records.map((r) => r.id));
    for (const [k, loser] of answers.entries()) {
      if (loser.status === 200) continue;
      const overlap = batches[k]!.records.filter((r) => won.has(r.id));
      expect(loser.body).toEqual(
        errorBody('VERSION_CONFLICT', {
          details: {
            errors: overlap.map((r) => ({
              accounting_record_id: r.id,
              error_code: 'VERSION_CONFLICT',
              message: expect.any(String),
              reason: expect.any(String),
              expected_version: 1,
              current_version: 2,
            })),
          },
        }),
      );
    }
    const moved = new Map(winner.records.map((r) => [r.id, winner.review_status]));
    const stored = await storedRecords(t.ctx, api.accountId);
    expect(stored.map((r) => [r.id, r.review_status, Number(r.version)]).sort()).toEqual(
      records.map((r) => [r.id, moved.get(r.id) ?? 'REVIEW', moved.has(r.id) ? 2 : 1]).sort(),
    );
    const { events } = await snapshot(t.ctx, api.accountId);
    const movedEvents = events.filter((e) => e.type === 'MOVED');
    expect(movedEvents.map((e) => [e.record_id, e.version]).sort()).toEqual(
      [...moved.keys()].map((id) => [id, 2]).sort(),
    );

    // The same request again under its Idempotency-Key answers as before and moves nothing more.
    const key = { 'idempotency-key': 'move-once' };
    const rest = { review_status: 'PREPARE', records: [{ id: records[0]!.id }, { id: records[14]!.id }] };
    const first = await api.post(BULK, rest, key);
    const before = await snapshot(t.ctx, api.accountId);
    const replay = await api.post(BULK, rest, key);
    expect([replay.status, replay.body, replay.headers['idempotent-replayed']]).toEqual([
      first.status,
      first.body,
      'true',
    ]);
    expect(await snapshot(t.ctx, api.accountId)).toEqual(before);
  });
});
