import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { ADMIN, RECORDS, reviewUrl } from './support/accounting.js';
import { storedRecord } from './support/stored.js';

const LEGAL: [string, string][] = [
  ['PREPARE', 'REVIEW'],
  ['REVIEW', 'READY_FOR_EXPORT'],
  ['READY_FOR_EXPORT', 'REVIEW'],
  ['REVIEW', 'PREPARE'],
];
const STATES = ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT', 'EXPORTED'];

describeEachDialect('accounting review lifecycle', (t) => {
  it('allows exactly the single steps of CONVENTIONS.md; version and updated_at move with each', async () => {
    const api = await t.ctx.as([...ADMIN]);
    for (const [from, to] of LEGAL) {
      const record = await api.newRecord({ review_status: from });
      const res = await api.post(reviewUrl(record.id), { review_status: to, version: 1 });
      expect(res.status, `${from} → ${to}`).toBe(200);
      expect(res.body).toEqual({ ...record, review_status: to, version: 2, updated_at: expect.any(String) });
      expect(res.body.updated_at > record.updated_at).toBe(true);
      expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(res.body);
    }
  });

  it('rejects every other move, the current state and EXPORTED included, with 409 and no change', async () => {
    const api = await t.ctx.as([...ADMIN]);
    for (const from of ['PREPARE', 'REVIEW', 'READY_FOR_EXPORT']) {
      const record = await api.newRecord({ review_status: from });
      for (const to of STATES) {
        if (LEGAL.some(([f, x]) => f === from && x === to)) continue;
        const res = await api.post(reviewUrl(record.id), { review_status: to });
        expect(res.status, `${from} → ${to}`).toBe(409);
        expect(res.body).toEqual(errorBody('INVALID_TRANSITION', { details: { from, to } }));
      }
      expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(record);
    }
  });

  it('EXPORTED goes back to REVIEW only', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const record = await api.newRecord({ review_status: 'READY_FOR_EXPORT' });
    const exported = await api.post('/v3/accounting/records/export-results', {
      results: [{ accounting_record_id: record.id, success: { reference_id: 'erp_1' } }],
    });
    expect(exported.status).toBe(200);
    for (const to of ['PREPARE', 'READY_FOR_EXPORT', 'EXPORTED']) {
      expect((await api.post(reviewUrl(record.id), { review_status: to })).body.error_code).toBe('INVALID_TRANSITION');
    }
    const reopened = await api.post(reviewUrl(record.id), { review_status: 'REVIEW', version: 2 });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({
      review_status: 'REVIEW',
      version: 3,
      last_export_result: { status: 'SUCCESS', reference_id: 'erp_1' },
    });
  });

  it('a stale version → 409 VERSION_CONFLICT, nothing changed', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const record = await api.newRecord();
    expect((await api.post(reviewUrl(record.id), { review_status: 'REVIEW', version: 1 })).status).toBe(200);
    const stale = await api.post(reviewUrl(record.id), { review_status: 'PREPARE', version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual(
      errorBody('VERSION_CONFLICT', {
        details: { expected_version: 1, current_version: 2 },
      }),
    );
    const row = await storedRecord(t.ctx, api.accountId, record.id);
    expect([row!.review_status, Number(row!.version)]).toEqual(['REVIEW', 2]);
  });

  it('concurrent moves from the same version: exactly one wins', async () => {
    const api = await t.ctx.as([...ADMIN]);
    const record = await api.newRecord({ review_status: 'REVIEW' });
    const answers = await Promise.all(
      ['READY_FOR_EXPORT', 'PREPARE', 'READY_FOR_EXPORT', 'PREPARE'].map((to) =>
        api.post(reviewUrl(record.id), { review_status: to, version: 1 }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409]);
    expect(Number((await storedRecord(t.ctx, api.accountId, record.id))!.version)).toBe(2);
  });

  it("unknown or another account's record → 404; bad bodies → 400; admin scope needed", async () => {
    const api = await t.ctx.as([...ADMIN]);
    const other = await t.ctx.as([...ADMIN]);
    const theirs = await other.newRecord();
    const res = await api.post(reviewUrl(theirs.id), { review_status: 'REVIEW' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(
      errorBody('NOT_FOUND', {
        details: { accounting_record_id: theirs.id },
      }),
    );
    const bad = await api.post(reviewUrl(theirs.id), { review_status: 'DONE', version: 0, extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors).toEqual(
      expect.arrayContaining([
        { path: '/review_status', message: 'must be one of: PREPARE, REVIEW, READY_FOR_EXPORT, EXPORTED (got "DONE")' },
        { path: '/version', message: expect.any(String) },
        { path: '/extra', message: expect.any(String) },
      ]),
    );
    const writer = await t.ctx.as(['accounting.record.write'], other.accountId);
    expect((await writer.post(reviewUrl(theirs.id), { review_status: 'REVIEW' })).status).toBe(403);
    expect((await other.get(`${RECORDS}/${theirs.id}`)).body).toEqual(theirs);
  });
});
