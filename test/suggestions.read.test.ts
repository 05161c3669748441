import { expect, it } from 'vitest';
import { PEOPLE } from './support/accounting.js';
import { ruleChart } from './support/coding-rules.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import { REVIEWER } from './support/review.js';
import { BATCH, day, history, suggestion, suggestionsOf, suggestionsUrl } from './support/suggestions.js';

const line = (field_values: unknown[] = [], amount = 171.75) => ({
  amount: { amount, currency: 'USD' },
  field_values,
});

describeEachDialect('coding suggestions: reading', (t) => {
  it("suggests each uncoded field's value from the vendor's approved history, with its confidence and reason", async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    const travel = [set(gl, 1), set(dept, 0)];
    await history(api, [
      { vendor: 'Uber', codes: [set(gl, 0), set(dept, 0)] },
      { vendor: 'uber', codes: travel },
      { vendor: 'Uber', codes: travel },
      { vendor: 'Uber', codes: travel },
    ]);
    await api.exportedRecord({
      posted_at: day(5),
      vendor: { id: 'v', name: 'Uber' },
      lines: [line(travel)],
    });
    // Under review, not approved: not learned from.
    await api.newRecord({ posted_at: day(6), vendor: { id: 'v', name: 'Uber' }, lines: [line([set(gl, 2)])] });
    const target = await api.newRecord({
      posted_at: day(10),
      vendor: { id: 'v', name: 'UBER' },
      lines: [line([], 100), line([set(gl, 2)], 71.75)],
    });
    const [first, second] = target.line_items;
    const body = await suggestionsOf(api, target.id);
    expect(body).toEqual({
      accounting_record_id: target.id,
      version: 1,
      suggestions: [
        suggestion(first.id, gl, 1, {
          confidence: 0.8,
          signal: 'VENDOR',
          reason: '4 of the last 5 records of vendor UBER were coded 6020 Travel',
          matching_records: 4,
          coded_records: 5,
        }),
        suggestion(first.id, dept, 0, {
          confidence: 1,
          signal: 'VENDOR',
          reason: '5 of the last 5 records of vendor UBER were coded Sales',
          matching_records: 5,
          coded_records: 5,
        }),
        suggestion(second.id, dept, 0, {
          confidence: 1,
          signal: 'VENDOR',
          reason: '5 of the last 5 records of vendor UBER were coded Sales',
          matching_records: 5,
          coded_records: 5,
        }),
      ],
    });
    // Reading writes nothing.
    expect((await api.get(`/internal/v1/accounting/records/${target.id}/history`)).body.items).toHaveLength(1);
    // The console's record answer carries the same suggestions, of the same version; a caller who may not code
    // (no review or admin scope) is given none.
    const forReview = await api.get(`/internal/v1/accounting/records/${target.id}`);
    expect([forReview.status, forReview.body.record.version, forReview.body.suggestions]).toEqual([
      200,
      1,
      body.suggestions,
    ]);
    const reader = await t.ctx.as(['accounting.record.read'], api.accountId);
    const read = await reader.get(`/internal/v1/accounting/records/${target.id}`);
    expect([read.status, read.body.suggestions, read.body.record.id]).toEqual([200, null, target.id]);
  });

  it('breaks ties by the newest record (posted, then created), then the smaller svc_id; the same answer every time', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    await history(api, [
      { vendor: 'Lyft', codes: [set(gl, 0)] },
      { vendor: 'Lyft', codes: [set(gl, 1)] },
    ]);
    // Posted the same day: the one made later is the newer.
    await history(
      api,
      [
        { vendor: 'Bolt', codes: [set(gl, 2)] },
        { vendor: 'Bolt', codes: [set(gl, 0)] },
      ].map((e) => ({ ...e, extra: { posted_at: day(3) } })),
    );
    const [lyft, bolt] = await api.newRecords([
      { vendor: { id: 'v', name: 'Lyft' } },
      { vendor: { id: 'v', name: 'Bolt' } },
    ]);
    const once = await suggestionsOf(api, lyft.id);
    expect(once.suggestions).toEqual([
      suggestion(lyft.line_items[0].id, gl, 1, {
        confidence: 0.5,
        signal: 'VENDOR',
        reason: '1 of the last 2 records of vendor Lyft were coded 6020 Travel',
        matching_records: 1,
        coded_records: 2,
      }),
    ]);
    expect(await suggestionsOf(api, lyft.id)).toEqual(once);
    expect((await suggestionsOf(api, bolt.id)).suggestions.map((s: any) => s.value)).toEqual(['6010 Meals']);
  });

  it('never suggests a disabled or deleted value, nor a value of a disabled field', async () => {
    const { api, gl, dept, set } = await ruleChart(t.ctx);
    await history(api, [
      { vendor: 'Acme', codes: [set(gl, 0), set(dept, 1)] },
      { vendor: 'Acme', codes: [set(gl, 1), set(dept, 1)] },
      { vendor: 'Acme', codes: [set(gl, 1), set(dept, 1)] },
      { vendor: 'Acme', codes: [set(gl, 1), set(dept, 1)] },
    ]);
    const target = await api.newRecord({ vendor: { id: 'v', name: 'Acme' } });
    const lineId = target.line_items[0].id;
    const disabled = await api.put(`/v1/fields/${gl.field.svc_id}/values`, {
      items: [{ svc_id: gl.values[1].svc_id, data: { is_disabled: true } }],
    });
    expect(disabled.status, disabled.text).toBe(200);
    const fieldOff = await api.put(`/v1/fields/${dept.field.svc_id}`, { is_disabled: true });
    expect(fieldOff.status, fieldOff.text).toBe(200);
    expect((await suggestionsOf(api, target.id)).suggestions).toEqual([
      suggestion(lineId, gl, 0, {
        confidence: 0.25,
        signal: 'VENDOR',
        reason: '1 of the last 4 records of vendor Acme were coded 6010 Meals',
        matching_records: 1,
        coded_records: 4,
      }),
    ]);
    const deleted = await api.delete(`/v1/fields/${gl.field.svc_id}/values`, {
      items: [{ svc_id: gl.values[0].svc_id }],
    });
    expect(deleted.status, deleted.text).toBe(200);
    // Nothing the history holds may be coded now: no suggestion, not another guess.
    expect((await suggestionsOf(api, target.id)).suggestions).toEqual([]);
  });

  it('cold start: no approved history, no suggestion', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const [target] = await api.newRecords([{ vendor: { id: 'v', name: 'Uber' } }]);
    expect(await suggestionsOf(api, target.id)).toEqual({
      accounting_record_id: target.id,
      version: 1,
      suggestions: [],
    });
    // Records under review teach nothing either.
    await api.newRecords([{ vendor: { id: 'v', name: 'Uber' }, lines: [line([set(gl, 1)])] }]);
    expect((await suggestionsOf(api, target.id)).suggestions).toEqual([]);
  });

  it("never uses another account's history, and answers 404 for another account's record", async () => {
    const mine = await ruleChart(t.ctx);
    const theirs = await ruleChart(t.ctx);
    await history(theirs.api, [
      { vendor: 'Uber', codes: [theirs.set(theirs.gl, 1)] },
      { vendor: 'Uber', codes: [theirs.set(theirs.gl, 1)] },
      { vendor: 'Uber', codes: [theirs.set(theirs.gl, 1)] },
    ]);
    const [target] = await mine.api.newRecords([{ vendor: { id: 'v', name: 'Uber' } }]);
    const [foreign] = await theirs.api.newRecords([{ vendor: { id: 'v', name: 'Uber' } }]);
    expect((await suggestionsOf(mine.api, target.id)).suggestions).toEqual([]);
    expect((await suggestionsOf(theirs.api, foreign.id)).suggestions).toHaveLength(1);
    const res = await mine.api.get(suggestionsUrl(foreign.id));
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorBody('NOT_FOUND', { details: { accounting_record_id: foreign.id } }));
  });

  it('learns from the user, the memo words, the amount band and the record type when the vendor says nothing', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    const user = { ...PEOPLE.user, email: 'Ada@Example.invalid' };
    const amount = (n: number) => ({ amount: { amount: n, currency: 'USD' } });
    await history(
      api,
      [0, 1, 2].map(() => ({ vendor: 'Figma', codes: [set(gl, 2)], extra: { user } })),
    );
    await history(
      api,
      [0, 1, 2].map(() => ({ codes: [set(gl, 0)], extra: { type: 'REIMBURSEMENT_EXPENSE_POST', memo: 'Team lunch' } })),
      5,
    );
    await history(
      api,
      [0, 1, 2].map((i) => ({
        codes: [set(gl, 1)],
        extra: { type: 'REIMBURSEMENT_EXPENSE_POST', memo: `Taxi ${i}`, ...amount(2000 + i) },
      })),
      10,
    );
    const [byUser, byMemo, byAmount, byType] = await api.newRecords([
      { vendor: { id: 'v', name: 'Canva' }, user: { ...PEOPLE.user, email: 'ada@example.invalid' } },
      { type: 'REIMBURSEMENT_EXPENSE_POST', memo: 'Lunch with a client' },
      { type: 'REIMBURSEMENT_EXPENSE_POST', memo: 'Hotel', ...amount(3500) },
      { type: 'REIMBURSEMENT_EXPENSE_POST', memo: 'Parking', ...amount(5) },
    ]);
    const only = async (record: any) => (await suggestionsOf(api, record.id)).suggestions;
    expect(await only(byUser)).toEqual([
      suggestion(byUser.line_items[0].id, gl, 2, {
        confidence: 0.8,
        signal: 'USER',
        reason: '3 of the last 3 records of user ada@example.invalid were coded 6030 Software',
        matching_records: 3,
        coded_records: 3,
      }),
    ]);
    expect(await only(byMemo)).toEqual([
      suggestion(byMemo.line_items.find((l: any) => l.type === 'DEBIT').id, gl, 0, {
        confidence: 0.7,
        signal: 'MEMO',
        reason: '3 of the last 3 REIMBURSEMENT_EXPENSE_POST records with "lunch" in the memo were coded 6010 Meals',
        matching_records: 3,
        coded_records: 3,
      }),
    ]);
    expect(await only(byAmount)).toEqual([
      suggestion(byAmount.line_items.find((l: any) => l.type === 'DEBIT').id, gl, 1, {
        confidence: 0.6,
        signal: 'AMOUNT',
        reason: '3 of the last 3 REIMBURSEMENT_EXPENSE_POST records of 1000 to under 10000 USD were coded 6020 Travel',
        matching_records: 3,
        coded_records: 3,
      }),
    ]);
    // Neither memo nor amount band speaks: of the type's 6 records, Travel and Meals hold 3 each, no majority.
    expect(await only(byType)).toEqual([]);
  });

  it('answers up to 200 records in one request, in the order asked; refuses unknown, repeated and too many ids', async () => {
    const { api, gl, set } = await ruleChart(t.ctx);
    await history(api, [{ vendor: 'Uber', codes: [set(gl, 1)] }]);
    const [a, b] = await api.newRecords([{ vendor: { id: 'v', name: 'Uber' } }, { vendor: { id: 'v', name: 'Lyft' } }]);
    const res = await api.post(BATCH, { accounting_record_ids: [b.id, a.id] });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      items: [
        { accounting_record_id: b.id, version: 1, suggestions: [] },
        {
          accounting_record_id: a.id,
          version: 1,
          suggestions: [
            suggestion(a.line_items[0].id, gl, 1, {
              confidence: 1,
              signal: 'VENDOR',
              reason: 'The last record of vendor Uber was coded 6020 Travel',
              matching_records: 1,
              coded_records: 1,
            }),
          ],
        },
      ],
    });
    const other = await t.ctx.as(REVIEWER);
    const [foreign] = await other.newRecords([{}]);
    const missing = await api.post(BATCH, { accounting_record_ids: [a.id, foreign.id, 'accr_nope'] });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual(
      errorBody('NOT_FOUND', { details: { not_found_accounting_record_ids: [foreign.id, 'accr_nope'] } }),
    );
    const twice = await api.post(BATCH, { accounting_record_ids: [a.id, a.id] });
    expect(twice.status).toBe(400);
    expect(twice.body.error_code).toBe('INVALID_REQUEST');
    expect(twice.body.details.errors.map((e: any) => e.path)).toEqual(['/accounting_record_ids']);
    const many = await api.post(BATCH, { accounting_record_ids: Array.from({ length: 201 }, (_, i) => `accr_${i}`) });
    expect(many.status).toBe(400);
    expect((await api.post(BATCH, { accounting_record_ids: [] })).status).toBe(400);
  });

  it('takes a review scope', async () => {
    const { api } = await ruleChart(t.ctx);
    const [record] = await api.newRecords([{}]);
    const reader = await t.ctx.as(['accounting.record.read'], api.accountId);
    const res = await reader.get(suggestionsUrl(record.id));
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('FORBIDDEN');
    expect((await reader.post(BATCH, { accounting_record_ids: [record.id] })).status).toBe(403);
  });
});
