import { expect, it } from 'vitest';
import { describeEachDialect, type TestContext } from './support/context.js';
import { errorBody } from './support/expect.js';
import { BULK, REQUIRED, REVIEWER } from './support/review.js';
import { storedRecord } from './support/stored.js';

const MOVES = '/internal/v1/accounting/records/allowed-moves';
const recordUrl = (id: string) => `/internal/v1/accounting/records/${id}`;

const CODING = 'It lacks the coding required before approval: line 1 needs GL Account.';
const EXPORT_ONLY = 'Only a successful export moves a record to Exported.';
const SUBMIT_FIRST = 'It is still in Prepare: it has to be submitted for review before it can be approved.';
const yes = (to: string, direction: string) => ({ to, direction, allowed: true });
const no = (to: string, direction: string, reason_code: string, reason: string, via?: string[]) => ({
  to,
  direction,
  allowed: false,
  reason_code,
  reason,
  ...(via ? { allowed_via: via } : {}),
});

/** An account requiring a GL account on every line, with a record in each state, coded or not. */
async function estate(ctx: TestContext) {
  const api = await ctx.as([...REVIEWER, 'accounting.record.write']);
  const gl = await api.newCoding('GL Account', [{ value: '6010 Meals', remote_id: 'GL-6010' }], 'GL');
  const codedLine = {
    lines: [
      {
        amount: { amount: 171.75, currency: 'USD' },
        field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }],
      },
    ],
  };
  const [prepareCoded, prepareUncoded, reviewCoded, reviewUncoded, ready] = await api.newRecords([
    { review_status: 'PREPARE', ...codedLine },
    { review_status: 'PREPARE' },
    { review_status: 'REVIEW', ...codedLine },
    { review_status: 'REVIEW' },
    { review_status: 'READY_FOR_EXPORT', ...codedLine },
  ]);
  const exported = await api.exportedRecord(codedLine);
  expect((await api.put(REQUIRED, { field_ids: [gl.field.svc_id] })).status).toBe(200);
  return { api, prepareCoded, prepareUncoded, reviewCoded, reviewUncoded, ready, exported };
}

describeEachDialect('review: allowed moves', (t) => {
  it("answers each record's moves as the lifecycle, the required coding and the caller's scopes decide", async () => {
    const e = await estate(t.ctx);
    const res = await e.api.get(MOVES, {
      ids: [e.prepareCoded.id, e.prepareUncoded.id, e.reviewCoded.id, e.reviewUncoded.id, e.ready.id, e.exported.id],
    });
    expect(res.status, res.text).toBe(200);
    const item = (record: any, review_status: string, version: number, allowed_moves: unknown[]) => ({
      id: record.id,
      review_status,
      version,
      allowed_moves,
    });
    expect(res.body).toEqual({
      items: [
        item(e.prepareCoded, 'PREPARE', 1, [
          yes('REVIEW', 'FORWARD'),
          no('READY_FOR_EXPORT', 'FORWARD', 'INVALID_TRANSITION', SUBMIT_FIRST, ['REVIEW']),
          no('EXPORTED', 'FORWARD', 'INVALID_TRANSITION', EXPORT_ONLY),
        ]),
        // Submitting would not make it approvable: no way through.
        item(e.prepareUncoded, 'PREPARE', 1, [
          yes('REVIEW', 'FORWARD'),
          no('READY_FOR_EXPORT', 'FORWARD', 'INVALID_TRANSITION', SUBMIT_FIRST),
          no('EXPORTED', 'FORWARD', 'INVALID_TRANSITION', EXPORT_ONLY),
        ]),
        item(e.reviewCoded, 'REVIEW', 1, [
          yes('PREPARE', 'BACK'),
          yes('READY_FOR_EXPORT', 'FORWARD'),
          no('EXPORTED', 'FORWARD', 'INVALID_TRANSITION', EXPORT_ONLY),
        ]),
        item(e.reviewUncoded, 'REVIEW', 1, [
          yes('PREPARE', 'BACK'),
          no('READY_FOR_EXPORT', 'FORWARD', 'CODING_REQUIRED', CODING),
          no('EXPORTED', 'FORWARD', 'INVALID_TRANSITION', EXPORT_ONLY),
        ]),
        item(e.ready, 'READY_FOR_EXPORT', 1, [
          no(
            'PREPARE',
            'BACK',
            'INVALID_TRANSITION',
            'It is in Ready for export: records go back one step at a time, so it cannot go straight back to Prepare.',
          ),
          yes('REVIEW', 'BACK'),
          no('EXPORTED', 'FORWARD', 'INVALID_TRANSITION', EXPORT_ONLY),
        ]),
        item(e.exported, 'EXPORTED', 2, [
          no('PREPARE', 'BACK', 'INVALID_TRANSITION', 'An exported record can only be reopened to Review.'),
          yes('REVIEW', 'BACK'),
          no('READY_FOR_EXPORT', 'BACK', 'INVALID_TRANSITION', 'An exported record can only be reopened to Review.'),
        ]),
      ],
    });
  });

  it('says exactly what the move then does: every allowed move is accepted, every other refused with its code', async () => {
    for (const to of ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT', 'EXPORTED'] as const) {
      const e = await estate(t.ctx);
      const records = [e.prepareCoded, e.prepareUncoded, e.reviewCoded, e.reviewUncoded, e.ready, e.exported];
      const answer = await e.api.get(MOVES, { ids: records.map((r) => r.id) });
      for (const { id, allowed_moves } of answer.body.items) {
        const said = allowed_moves.find((m: any) => m.to === to);
        const before = await storedRecord(t.ctx, e.api.accountId, id);
        const moved = await e.api.post(BULK, { review_status: to, records: [{ id }] });
        if (!said) {
          expect(moved.body.details.errors[0].error_code, `${id} to ${to}`).toBe('INVALID_TRANSITION');
        } else if (said.allowed) {
          expect([moved.status, moved.body.items?.[0]?.review_status], `${id} to ${to}`).toEqual([200, to]);
        } else {
          expect([moved.body.error_code, moved.body.details.errors[0].reason], `${id} to ${to}`).toEqual([
            said.reason_code,
            said.reason,
          ]);
          expect(await storedRecord(t.ctx, e.api.accountId, id)).toEqual(before);
        }
      }
    }
  });

  it('refuses every move to a caller whose scopes may not move records, as the move would (403)', async () => {
    const e = await estate(t.ctx);
    const reader = await t.ctx.as(['accounting.record.read'], e.api.accountId);
    const res = await reader.get(MOVES, { ids: [e.reviewCoded.id] });
    const forbidden = 'Your role may see records but not move them through review.';
    expect([res.status, res.body]).toEqual([
      200,
      {
        items: [
          {
            id: e.reviewCoded.id,
            review_status: 'REVIEW',
            version: 1,
            allowed_moves: [
              no('PREPARE', 'BACK', 'FORBIDDEN', forbidden),
              no('READY_FOR_EXPORT', 'FORWARD', 'FORBIDDEN', forbidden),
              no('EXPORTED', 'FORWARD', 'FORBIDDEN', forbidden),
            ],
          },
        ],
      },
    ]);
    const move = await reader.post(BULK, { review_status: 'PREPARE', records: [{ id: e.reviewCoded.id }] });
    expect([move.status, move.body.error_code]).toEqual([403, 'FORBIDDEN']);
  });

  it("leaves out ids that are not the caller's records, answers in the order named, and wants ids", async () => {
    const e = await estate(t.ctx);
    const stranger = await t.ctx.as([...REVIEWER]);
    const theirs = await stranger.newRecord({ review_status: 'REVIEW' });
    const res = await e.api.get(MOVES, { ids: [e.ready.id, 'accr_nope', theirs.id, e.prepareCoded.id, e.ready.id] });
    expect([res.status, res.body.items.map((i: any) => i.id)]).toEqual([200, [e.ready.id, e.prepareCoded.id]]);
    const none = await e.api.get(MOVES);
    expect(none.status).toBe(400);
  });

  it('answers a record for review: both forms of one read, with its allowed moves; the public record is unchanged', async () => {
    const e = await estate(t.ctx);
    const res = await e.api.get(recordUrl(e.reviewUncoded.id));
    const publicUrl = `/v3/accounting/records/${e.reviewUncoded.id}`;
    const [record, single] = [await e.api.get(publicUrl), await e.api.get(publicUrl, { single_entry: 'true' })];
    expect(record.body).not.toHaveProperty('allowed_moves');
    expect([res.status, res.body]).toEqual([
      200,
      {
        record: record.body,
        single_entry: single.body,
        allowed_moves: [
          yes('PREPARE', 'BACK'),
          no('READY_FOR_EXPORT', 'FORWARD', 'CODING_REQUIRED', CODING),
          no('EXPORTED', 'FORWARD', 'INVALID_TRANSITION', EXPORT_ONLY),
        ],
        coding: { editable: true },
        // No approved history in this account: nothing to suggest (test/suggestions.read.test.ts has some).
        suggestions: [],
      },
    ]);
    const stranger = await t.ctx.as([...REVIEWER]);
    const foreign = await stranger.get(recordUrl(e.reviewUncoded.id));
    expect([foreign.status, foreign.body]).toEqual([
      404,
      errorBody('NOT_FOUND', { details: { accounting_record_id: e.reviewUncoded.id } }),
    ]);
  });
});
