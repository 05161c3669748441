import { expect, it } from 'vitest';
import { RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import { chartAndRecord, codingUrl, coding, recordAndHistory, REVIEWER } from './support/review.js';
import { storedRecord } from './support/stored.js';

describeEachDialect('review: coding lines', (t) => {
  it('codes an economic line by svc_id and by remote ids, answering both forms; the record moves on like any change', async () => {
    const { api, gl, dept, record, economic } = await chartAndRecord(t.ctx);
    const res = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [
        {
          line_id: economic.id,
          field_values: [
            { field_remote_id: 'GL', remote_id: 'GL-6010' },
            { field_id: dept.field.svc_id, svc_id: dept.values[1].svc_id },
          ],
        },
      ],
    });
    expect(res.status, res.text).toBe(200);
    const codings = [coding(gl.field, gl.values[0]), coding(dept.field, dept.values[1])];
    const expected = {
      ...record,
      version: 2,
      updated_at: expect.stringMatching(ISO_MICROS),
      line_items: [{ ...economic, accounting_field_values: codings }, record.line_items[1]],
    };
    expect(res.body).toEqual({ record: expected, single_entry: { ...expected, line_items: [expected.line_items[0]] } });
    expect(res.body.record.updated_at > record.updated_at).toBe(true);
    // The public API shows what the answer showed, in both forms.
    expect((await api.get(`${RECORDS}/${record.id}`)).body).toEqual(res.body.record);
    expect((await api.get(`${RECORDS}/${record.id}`, { single_entry: 'true' })).body).toEqual(res.body.single_entry);
    const stored = await storedRecord(t.ctx, api.accountId, record.id);
    expect(stored).toMatchObject({ version: 2, uncoded_lines: 0 });
    expect(JSON.parse(stored!.line_items_json)).toEqual(res.body.record.line_items);

    // [] uncodes the line again.
    const uncoded = await api.post(codingUrl(record.id), {
      version: 2,
      lines: [{ line_id: economic.id, field_values: [] }],
    });
    expect(uncoded.status, uncoded.text).toBe(200);
    expect(uncoded.body.record.line_items[0].accounting_field_values).toEqual([]);
    expect(uncoded.body.record.version).toBe(3);
    expect(await storedRecord(t.ctx, api.accountId, record.id)).toMatchObject({ version: 3, uncoded_lines: 1 });
  });

  it('refuses disabled, deleted and unknown values, values of a disabled field, and names the line and value', async () => {
    const { api, gl, dept, record, economic } = await chartAndRecord(t.ctx);
    await api.put(`/v1/fields/${gl.field.svc_id}/values`, {
      items: [{ svc_id: gl.values[2].svc_id, data: { is_disabled: true } }],
    });
    const deleted = await api.delete(`/v1/fields/${dept.field.svc_id}/values`, {
      items: [{ svc_id: dept.values[0].svc_id }],
    });
    expect(deleted.status).toBe(200);
    const before = await recordAndHistory(t.ctx, api, record.id);
    const refs = [
      { field_id: gl.field.svc_id, svc_id: gl.values[2].svc_id },
      { field_id: dept.field.svc_id, svc_id: dept.values[0].svc_id },
      { field_remote_id: 'NOPE', remote_id: 'x' },
    ];
    const res = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: refs }],
    });
    expect(res.status).toBe(422);
    const at = (k: number) => ({ path: `/lines/0/field_values/${k}`, line_id: economic.id, ...refs[k] });
    expect(res.body).toEqual(
      errorBody('INVALID_CODING', {
        details: {
          errors: [
            { ...at(0), reason: 'VALUE_DISABLED', message: 'is the disabled value "6999 Old" of GL Account' },
            { ...at(1), reason: 'NOT_FOUND', message: 'is not a value of the account (unknown or deleted)' },
            { ...at(2), reason: 'NOT_FOUND', message: 'is not a value of the account (unknown or deleted)' },
          ],
        },
      }),
    );
    expect(res.body.message).toContain('/lines/0/field_values/0 is the disabled value "6999 Old" of GL Account');

    // A value of a disabled field.
    await api.put(`/v1/fields/${dept.field.svc_id}`, { is_disabled: true });
    const fieldOff = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: [{ field_id: dept.field.svc_id, svc_id: dept.values[1].svc_id }] }],
    });
    expect(fieldOff.status).toBe(422);
    expect(fieldOff.body.details.errors).toEqual([
      {
        path: '/lines/0/field_values/0',
        line_id: economic.id,
        field_id: dept.field.svc_id,
        svc_id: dept.values[1].svc_id,
        reason: 'FIELD_DISABLED',
        message: 'is a value of the disabled field Department',
      },
    ]);
    expect(await recordAndHistory(t.ctx, api, record.id)).toEqual(before);
  });

  it('refuses the balancing line, unknown lines, a line named twice and a field coded twice, with every problem', async () => {
    const { api, gl, record, economic, balancing } = await chartAndRecord(t.ctx);
    const before = await recordAndHistory(t.ctx, api, record.id);
    const value = (k: number) => ({ field_id: gl.field.svc_id, svc_id: gl.values[k].svc_id });
    const lines = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [
        { line_id: balancing.id, field_values: [value(0)] },
        { line_id: 'accrli_nope', field_values: [] },
        { line_id: economic.id, field_values: [] },
        { line_id: economic.id, field_values: [] },
      ],
    });
    expect(lines.status).toBe(400);
    expect(lines.body.details.errors).toEqual([
      {
        path: '/lines/0/line_id',
        message: `is ${balancing.id}, the balancing line: only economic lines are coded, split or merged`,
      },
      { path: '/lines/1/line_id', message: 'is not a line of this record (accrli_nope)' },
      { path: '/lines/3/line_id', message: `names line ${economic.id} a second time` },
    ]);
    const twice = await api.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: [value(0), value(1)] }],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.details.errors).toEqual([
      { path: '/lines/0/field_values/1', message: 'codes the field GL Account a second time: one value per field' },
    ]);
    expect(await recordAndHistory(t.ctx, api, record.id)).toEqual(before);
  });

  it("refuses a stale version, a record out of review, and another account's record or values", async () => {
    const { api, gl, record, economic } = await chartAndRecord(t.ctx);
    const body = (version: number) => ({
      version,
      lines: [{ line_id: economic.id, field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }] }],
    });
    const stale = await api.post(codingUrl(record.id), body(7));
    expect([stale.status, stale.body]).toEqual([
      409,
      errorBody('VERSION_CONFLICT', { details: { expected_version: 7, current_version: 1 } }),
    ]);

    const ready = await api.newRecord({ review_status: 'READY_FOR_EXPORT' });
    const locked = await api.post(codingUrl(ready.id), {
      ...body(1),
      lines: [{ line_id: ready.line_items[0].id, field_values: [] }],
    });
    expect([locked.status, locked.body]).toEqual([
      409,
      errorBody('RECORD_NOT_EDITABLE', {
        details: {
          accounting_record_id: ready.id,
          review_status: 'READY_FOR_EXPORT',
          editable_review_statuses: ['PREPARE', 'REVIEW'],
        },
      }),
    ]);

    const stranger = await t.ctx.as(REVIEWER);
    const before = await recordAndHistory(t.ctx, api, record.id);
    const foreign = await stranger.post(codingUrl(record.id), body(1));
    expect([foreign.status, foreign.body]).toEqual([
      404,
      errorBody('NOT_FOUND', { details: { accounting_record_id: record.id } }),
    ]);
    // The stranger's own record, coded with this account's value: as if the value did not exist.
    const theirs = await stranger.newRecord({ review_status: 'PREPARE' });
    const borrowed = await stranger.post(codingUrl(theirs.id), {
      version: 1,
      lines: [
        {
          line_id: theirs.line_items[0].id,
          field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }],
        },
      ],
    });
    expect(borrowed.status).toBe(422);
    expect(borrowed.body.details.errors[0].reason).toBe('NOT_FOUND');
    expect(await recordAndHistory(t.ctx, api, record.id)).toEqual(before);
  });

  it('answers 403 without a review scope', async () => {
    const { record, economic } = await chartAndRecord(t.ctx);
    const reader = await t.ctx.as(['accounting.record.read', 'accounting.record.write'], record.account_id);
    const res = await reader.post(codingUrl(record.id), {
      version: 1,
      lines: [{ line_id: economic.id, field_values: [] }],
    });
    expect(res.status).toBe(403);
  });
});
