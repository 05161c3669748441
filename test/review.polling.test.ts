import { expect, it } from 'vitest';
import { EXPORT_RESULTS, RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { BULK, codingUrl, REQUIRED, REVIEWER } from './support/review.js';

describeEachDialect('review: record history', (t) => {
  it('a coded, approved record reaches a poller with its new coding, once per version', async () => {
    const api = await t.ctx.as([...REVIEWER]);
    const gl = await api.newCoding('GL Account', [{ value: '6010 Meals' }, { value: '6020 Travel' }]);
    const dept = await api.newCoding('Department', [{ value: 'Sales' }]);
    const ref = (coding: typeof gl, k = 0) => ({ field_id: coding.field.svc_id, svc_id: coding.values[k].svc_id });
    const required = await api.put(REQUIRED, { field_ids: [gl.field.svc_id, dept.field.svc_id] });
    expect(required.status, required.text).toBe(200);
    const reviewer = await t.ctx.as(['accounting.record.review'], api.accountId);
    let mark: string | undefined;
    /** Polls everything after the mark, two records a page, and moves the mark to the last seen. */
    const poll = async () => {
      const seen: any[] = [];
      let cursor: string | undefined;
      do {
        const query: Record<string, string> = { limit: '2', ...(mark ? { 'updated_at[gt]': mark } : {}) };
        const res = await api.get(RECORDS, cursor ? { ...query, cursor } : query);
        expect(res.status, res.text).toBe(200);
        seen.push(...res.body.items);
        cursor = res.body.next_cursor ?? undefined;
      } while (cursor);
      mark = seen.at(-1)?.updated_at ?? mark;
      return seen;
    };
    const versions = (records: any[]) => records.map((r) => [r.id, r.version]);
    const current = async (id: string) => (await api.get(`${RECORDS}/${id}`)).body;

    const [x, y, z] = await api.newRecords([{ review_status: 'REVIEW' }, { review_status: 'REVIEW' }, {}]);
    const all = [await poll()];
    expect(versions(all[0]!)).toEqual([
      [x.id, 1],
      [y.id, 1],
      [z.id, 1],
    ]);
    expect((await reviewer.post(BULK, { review_status: 'READY_FOR_EXPORT', records: [{ id: x.id }] })).status).toBe(
      422,
    );
    all.push(await poll());
    expect(all.at(-1)).toEqual([]);

    const coded = await reviewer.post(codingUrl(x.id), {
      version: 1,
      lines: [{ line_id: x.line_items[0].id, field_values: [ref(gl, 1), ref(dept)] }],
    });
    expect(coded.status, coded.text).toBe(200);
    all.push(await poll());
    expect(all.at(-1)).toEqual([coded.body.record]);
    expect(coded.body.record.line_items[0].accounting_field_values.map((c: any) => c.field_value_name)).toEqual([
      '6020 Travel',
      'Sales',
    ]);

    const approved = await reviewer.post(BULK, {
      review_status: 'READY_FOR_EXPORT',
      records: [{ id: x.id, version: 2 }],
    });
    expect(approved.status, approved.text).toBe(200);
    all.push(await poll());
    expect(all.at(-1)).toEqual([{ ...coded.body.record, ...approved.body.items[0] }]);
    expect(all.at(-1)).toEqual([await current(x.id)]);

    const back = await reviewer.post(BULK, { review_status: 'PREPARE', records: [{ id: y.id }] });
    expect(back.status).toBe(200);
    await api.moveTo(z.id, ['REVIEW']);
    all.push(await poll());
    expect(versions(all.at(-1)!)).toEqual([
      [y.id, 2],
      [z.id, 2],
    ]);

    const report = await api.post(EXPORT_RESULTS, {
      results: [{ accounting_record_id: x.id, success: { reference_id: 'erp_1' } }],
    });
    expect(report.status, report.text).toBe(200);
    all.push(await poll());
    expect(all.at(-1)).toEqual([await current(x.id)]);
    expect(all.at(-1)![0]).toMatchObject({
      review_status: 'EXPORTED',
      version: 4,
      line_items: coded.body.record.line_items,
    });
    all.push(await poll());
    expect(all.at(-1)).toEqual([]);

    // Every version of every record, each exactly once and in order.
    expect(versions(all.flat()).sort()).toEqual(
      [x.id, x.id, x.id, x.id, y.id, y.id, z.id, z.id].map((id, k) => [id, [1, 2, 3, 4, 1, 2, 1, 2][k]]).sort(),
    );
  });
});
