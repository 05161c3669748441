import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { BULK, REQUIRED, REVIEWER } from './support/review.js';
import { storedRecord, storedRecords } from './support/stored.js';

/** A mixed batch: one record that may be approved and one of each reason another may not. */
async function mixedBatch(ctx: Parameters<Parameters<typeof describeEachDialect>[1]>[0]['ctx']) {
  const api = await ctx.as([...REVIEWER]);
  const gl = await api.newCoding('GL Account', [{ value: '6010 Meals', remote_id: 'GL-6010' }], 'GL');
  const glRef = { field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id };
  expect((await api.put(REQUIRED, { field_ids: [gl.field.svc_id] })).status).toBe(200);
  const [coded, stale, early, uncoded, coded2] = await api.newRecords([
    { review_status: 'REVIEW', lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [glRef] }] },
    { review_status: 'REVIEW', lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [glRef] }] },
    { review_status: 'PREPARE', lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [glRef] }] },
    { review_status: 'REVIEW' },
    { review_status: 'REVIEW', lines: [{ amount: { amount: 171.75, currency: 'USD' }, field_values: [glRef] }] },
  ]);
  const records = [
    { id: coded.id, version: 1 },
    { id: 'accr_nope' },
    { id: stale.id, version: 5 },
    { id: early.id },
    { id: uncoded.id, version: 1 },
    { id: coded2.id },
  ];
  const notMoved = [
    {
      accounting_record_id: 'accr_nope',
      error_code: 'NOT_FOUND',
      message: 'Accounting record accr_nope not found.',
      reason: 'There is no such record in this account (it may have been removed).',
    },
    {
      accounting_record_id: stale.id,
      error_code: 'VERSION_CONFLICT',
      message: 'The record is at version 1, not 5.',
      reason: 'Someone changed it after you loaded it (it is now at version 1): reload to see the change first.',
      expected_version: 5,
      current_version: 1,
    },
    {
      accounting_record_id: early.id,
      error_code: 'INVALID_TRANSITION',
      message: expect.stringContaining('A record in PREPARE cannot move to READY_FOR_EXPORT'),
      reason: 'It is still in Prepare: it has to be submitted for review before it can be approved.',
      from: 'PREPARE',
      to: 'READY_FOR_EXPORT',
    },
    {
      accounting_record_id: uncoded.id,
      error_code: 'CODING_REQUIRED',
      message: 'Lines lack the coding the account requires before READY_FOR_EXPORT.',
      reason: 'It lacks the coding required before approval: line 1 needs GL Account.',
      lines: [
        {
          index: 0,
          line_id: uncoded.line_items[0].id,
          missing_fields: [{ field_id: gl.field.svc_id, field_name: 'GL Account' }],
        },
      ],
    },
  ];
  return { api, coded, coded2, stale, early, uncoded, records, notMoved };
}

describeEachDialect('review: partial bulk moves', (t) => {
  it('stays all or nothing unless asked: the same batch is refused whole, every reason in plain words', async () => {
    const b = await mixedBatch(t.ctx);
    const before = await storedRecords(t.ctx, b.api.accountId);
    for (const body of [
      { review_status: 'READY_FOR_EXPORT', records: b.records },
      { review_status: 'READY_FOR_EXPORT', records: b.records, partial: false },
    ]) {
      const res = await b.api.post(BULK, body);
      expect([res.status, res.body]).toEqual([404, errorBody('NOT_FOUND', { details: { errors: b.notMoved } })]);
    }
    expect(await storedRecords(t.ctx, b.api.accountId)).toEqual(before);
  });

  it('with partial: true moves the records that may move and names each other one with its code and reason', async () => {
    const b = await mixedBatch(t.ctx);
    const untouched = await Promise.all(
      [b.stale, b.early, b.uncoded].map((r) => storedRecord(t.ctx, b.api.accountId, r.id)),
    );
    const res = await b.api.post(BULK, { review_status: 'READY_FOR_EXPORT', records: b.records, partial: true });
    expect([res.status, res.body]).toEqual([
      200,
      {
        items: [
          {
            id: b.coded.id,
            review_status: 'READY_FOR_EXPORT',
            version: 2,
            updated_at: expect.stringMatching(ISO_MICROS),
          },
          {
            id: b.coded2.id,
            review_status: 'READY_FOR_EXPORT',
            version: 2,
            updated_at: expect.stringMatching(ISO_MICROS),
          },
        ],
        not_moved: b.notMoved,
      },
    ]);
    for (const moved of [b.coded, b.coded2]) {
      const stored = await storedRecord(t.ctx, b.api.accountId, moved.id);
      expect([stored!.review_status, Number(stored!.version)]).toEqual(['READY_FOR_EXPORT', 2]);
    }
    expect(
      await Promise.all([b.stale, b.early, b.uncoded].map((r) => storedRecord(t.ctx, b.api.accountId, r.id))),
    ).toEqual(untouched);
    const history = await b.api.get(`/internal/v1/accounting/records/${b.coded.id}/history`);
    expect(history.body.items.map((e: any) => [e.type, e.changes])).toEqual([
      ['INGESTED', expect.anything()],
      ['MOVED', { review_status: { from: 'REVIEW', to: 'READY_FOR_EXPORT' } }],
    ]);
  });

  it('with partial: true and nothing movable answers 200, moving nothing', async () => {
    const b = await mixedBatch(t.ctx);
    const before = await storedRecords(t.ctx, b.api.accountId);
    const refused = b.records.filter((r) => r.id !== b.coded.id && r.id !== b.coded2.id);
    const res = await b.api.post(BULK, { review_status: 'READY_FOR_EXPORT', records: refused, partial: true });
    expect([res.status, res.body]).toEqual([200, { items: [], not_moved: b.notMoved }]);
    expect(await storedRecords(t.ctx, b.api.accountId)).toEqual(before);
  });

  it('still refuses a batch naming a record twice, partial or not', async () => {
    const b = await mixedBatch(t.ctx);
    const res = await b.api.post(BULK, {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: b.coded.id }, { id: b.coded.id }],
      partial: true,
    });
    expect([res.status, res.body.error_code]).toEqual([400, 'INVALID_REQUEST']);
    expect((await storedRecord(t.ctx, b.api.accountId, b.coded.id))!.review_status).toBe('REVIEW');
  });
});
