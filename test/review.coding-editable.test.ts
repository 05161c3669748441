import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { codingUrl, REVIEWER } from './support/review.js';

const recordUrl = (id: string) => `/internal/v1/accounting/records/${id}`;
const FORBIDDEN = 'Your role can see the coding (in the line items) but not change it.';
const locked = (state: string) =>
  `The coding can change while a record is in Prepare or Review. This record is ${state}: send it back to Review to change its coding.`;

describeEachDialect('review: whether a record’s coding may be changed, as the server decides it', (t) => {
  it('says editable in PREPARE and REVIEW, and why not in every other state; a coding request agrees each time', async () => {
    const api = await t.ctx.as([...REVIEWER, 'accounting.record.write']);
    const gl = await api.newCoding('GL Account', [{ value: '6010 Meals', remote_id: 'GL-6010' }], 'GL');
    const [prepare, review, ready] = await api.newRecords([
      { review_status: 'PREPARE' },
      { review_status: 'REVIEW' },
      { review_status: 'READY_FOR_EXPORT' },
    ]);
    const exported = await api.exportedRecord();
    const cases: [any, object][] = [
      [prepare, { editable: true }],
      [review, { editable: true }],
      [ready, { editable: false, reason_code: 'RECORD_NOT_EDITABLE', reason: locked('Ready for export') }],
      [exported, { editable: false, reason_code: 'RECORD_NOT_EDITABLE', reason: locked('Exported') }],
    ];
    for (const [record, coding] of cases) {
      const read = await api.get(recordUrl(record.id));
      expect([read.status, read.body.coding]).toEqual([200, coding]);
      const code = await api.post(codingUrl(record.id), {
        version: read.body.record.version,
        lines: [
          {
            line_id: read.body.record.line_items[0].id,
            field_values: [{ field_id: gl.field.svc_id, svc_id: gl.values[0].svc_id }],
          },
        ],
      });
      const said = read.body.coding;
      expect([record.review_status, code.status, code.body.error_code]).toEqual(
        said.editable ? [record.review_status, 200, undefined] : [record.review_status, 409, said.reason_code],
      );
    }
  });

  it('says not editable, FORBIDDEN, to a caller whose scopes may read but not code; the coding request is 403', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const record = await api.newRecord({ review_status: 'REVIEW' });
    // The same account read with the read scope alone (a read-only console user's scopes).
    const reader = await t.ctx.as(['accounting.record.read'], api.accountId);
    const read = await reader.get(recordUrl(record.id));
    expect([read.status, read.body.coding, read.body.suggestions]).toEqual([
      200,
      { editable: false, reason_code: 'FORBIDDEN', reason: FORBIDDEN },
      null,
    ]);
    const code = await reader.post(codingUrl(record.id), {
      version: record.version,
      lines: [{ line_id: record.line_items[0].id, field_values: [] }],
    });
    expect([code.status, code.body.error_code]).toEqual([403, 'FORBIDDEN']);
    // And to an admin (accounting.record.admin without .review), editable.
    const admin = await t.ctx.as(['accounting.record.admin', 'accounting.record.read'], api.accountId);
    expect((await admin.get(recordUrl(record.id))).body.coding).toEqual({ editable: true });
  });
});
