import { expect, it } from 'vitest';
import { SvcClient, type BulkCodingResult, type RecordCreate } from '../../client/src/index.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { describeLive } from './live-server.js';

const SCOPES: Scope[] = [
  'accounting.record.admin',
  'accounting.record.review',
  'accounting.record.read',
  'fields.write',
  'field_values.write',
];

const card: RecordCreate = {
  type: 'CARD_EXPENSE_POST',
  amount: { amount: 25, currency: 'USD' },
  posted_at: '2026-06-11T09:09:05Z',
};

describeLive('SDK: bulk coding', (s) => {
  it('codes several records in one request, each saved or refused on its own, typed; a retry with its key replays', async () => {
    const { clientId, clientSecret } = await s.live.credentials(SCOPES);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret, maxRetries: 0 });
    const field = await client.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
    const { items: values } = await client.fieldValues.create(field.svc_id, [{ value: '6010 Meals' }]);
    const { items: records } = await client.review.createRecords([card, card]);
    const meals = [{ field_id: field.svc_id, svc_id: values[0]!.svc_id }];
    const items = records.map((r, k) => ({
      record_id: r.id,
      version: k === 0 ? 1 : 9,
      lines: [{ line_id: r.line_items[0]!.id, field_values: meals }],
    }));
    const results: BulkCodingResult[] = await client.review.codeRecords(items, { idempotencyKey: 'grid-save-1' });
    expect(results.map((r) => r.status)).toEqual(['SAVED', 'REFUSED']);
    const [saved, refused] = results;
    if (saved?.status !== 'SAVED' || refused?.status !== 'REFUSED') throw new Error('unexpected outcomes');
    expect(saved.record.version).toBe(2);
    expect(saved.record.line_items[0]!.accounting_field_values.map((v) => v.field_value_name)).toEqual(['6010 Meals']);
    expect(refused.error).toEqual({
      error_code: 'VERSION_CONFLICT',
      message: 'The record is at version 1, not 9.',
      details: { expected_version: 9, current_version: 1 },
    });
    expect(await client.review.codeRecords(items, { idempotencyKey: 'grid-save-1' })).toEqual(results);
    expect((await client.accountingRecords.get(records[0]!.id)).version).toBe(2);
  });
});
