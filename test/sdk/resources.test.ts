import { expect, it } from 'vitest';
import { SvcClient } from '../../client/src/index.js';
import { describeLive } from './live-server.js';

describeLive('SDK: field values and accounting records', (s) => {
  it('covers every field value operation, with auto-pagination', async () => {
    const { clientId, clientSecret } = await s.live.credentials(['fields.write', 'field_values.write']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret });
    const field = await client.fields.create({ name: 'Department', group: 'USER' });
    const { items } = await client.fieldValues.create(
      field.svc_id,
      Array.from({ length: 25 }, (_, i) => ({
        value: `Dept ${i}`,
        remote_id: `D${i}`,
        value_id: i % 2 ? `V${i}` : null,
      })),
    );
    expect(items.map((v) => v.value)).toEqual(Array.from({ length: 25 }, (_, i) => `Dept ${i}`));
    expect(await client.fieldValues.get(field.svc_id, items[3]!.svc_id)).toEqual(items[3]);

    const page = await client.fieldValues.list(field.svc_id, { limit: 10, 'remote_id[]': ['D1', 'D2'] });
    expect(page).toEqual({ items: [items[1], items[2]], next_cursor: null });
    const all: string[] = [];
    for await (const v of client.fieldValues.listAll(field.svc_id, { limit: 7 })) all.push(v.svc_id);
    expect(all).toEqual(items.map((v) => v.svc_id));

    const updated = await client.fieldValues.update(field.svc_id, [
      { remote_id: 'D0', data: { is_disabled: true } },
      { value_id: 'V1', data: { value: 'Renamed' } },
      { svc_id: items[2]!.svc_id, data: {} },
    ]);
    expect(updated.items.map((v) => [v.svc_id, v.value, v.is_disabled])).toEqual([
      [items[0]!.svc_id, 'Dept 0', true],
      [items[1]!.svc_id, 'Renamed', false],
      [items[2]!.svc_id, 'Dept 2', false],
    ]);
    expect(await client.fieldValues.delete(field.svc_id, [{ svc_id: items[0]!.svc_id }, { remote_id: 'D24' }])).toEqual(
      {},
    );
    const rest: string[] = [];
    for await (const v of client.fieldValues.listAll(field.svc_id)) rest.push(v.svc_id);
    expect(rest).toEqual(items.slice(1, 24).map((v) => v.svc_id));
    const missing = await client.fieldValues.delete(field.svc_id, [{ remote_id: 'D0' }]).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, error_code: 'NOT_FOUND' });
  });

  it('gets, queries page by page and reports export results', async () => {
    const { clientId, clientSecret, accountId } = await s.live.credentials(['accounting.record.write']);
    const admin = await s.live.ctx.as(['accounting.record.admin'], accountId);
    const ingested = await admin.newRecords(
      Array.from({ length: 7 }, (_, i) => ({
        type: i < 5 ? 'CARD_EXPENSE_POST' : 'BILL_EXPENSE',
        review_status: 'READY_FOR_EXPORT',
        amount: { amount: 12.5 + i, currency: 'USD' },
        posted_at: '2026-06-11T09:09:05Z',
      })),
    );
    const ids: string[] = ingested.map((r: { id: string }) => r.id);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret });

    const record = await client.accountingRecords.get(ids[0]!);
    expect(record).toEqual(ingested[0]);
    const single = await client.accountingRecords.get(ids[0]!, { single_entry: true });
    expect(single.line_items.map((l) => l.type)).toEqual(['DEBIT']);

    const page = await client.accountingRecords.query({ review_status: 'READY_FOR_EXPORT', limit: 2 });
    expect(page).toMatchObject({ has_next_page: true, total_count: 5, next_cursor: expect.any(String) });
    const ready: string[] = [];
    for await (const r of client.accountingRecords.queryAll({ review_status: 'READY_FOR_EXPORT', limit: 2 }))
      ready.push(r.id);
    expect(ready).toEqual(ids.slice(0, 5));
    const bills: string[] = [];
    for await (const r of client.accountingRecords.queryAll({
      source_type: 'BILL',
      'updated_at[gt]': record.updated_at,
    }))
      bills.push(r.id);
    expect(bills).toEqual(ids.slice(5));

    const reported = await client.accountingRecords.reportExportResults([
      { accounting_record_id: ids[1]!, failure: { error_message: 'Closed period' } },
      { accounting_record_id: ids[0]!, success: { reference_id: 'JE-1' } },
    ]);
    expect(reported).toEqual({ updated_accounting_record_ids: [ids[1], ids[0]] });
    expect((await client.accountingRecords.get(ids[0]!)).review_status).toBe('EXPORTED');
    const again = await client.accountingRecords
      .reportExportResults([{ accounting_record_id: ids[0]!, success: {} }])
      .catch((e: unknown) => e);
    expect(again).toMatchObject({
      status: 422,
      error_code: 'ACCOUNTING_RECORD_NOT_READY_FOR_EXPORT',
      details: { not_ready_for_export_accounting_record_ids: [ids[0]] },
    });
  });
});
