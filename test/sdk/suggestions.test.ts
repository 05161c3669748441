import { expect, it } from 'vitest';
import {
  SvcApiError,
  SvcClient,
  SvcConflictError,
  SvcNotFoundError,
  type CodingSuggestion,
  type CodingSuggestionsAccepted,
  type RecordCreate,
} from '../../client/src/index.js';
import type { Scope } from '../../src/modules/auth/scopes.js';
import { describeLive, type LiveServer } from './live-server.js';

const ALL: Scope[] = [
  'accounting.record.admin',
  'accounting.record.review',
  'accounting.record.read',
  'fields.write',
  'field_values.write',
];

async function clientOf(live: LiveServer) {
  const { clientId, clientSecret } = await live.credentials(ALL);
  return new SvcClient({ baseUrl: live.url, clientId, clientSecret, maxRetries: 0 });
}

async function failure(call: Promise<unknown>): Promise<SvcApiError> {
  const error = await call.then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  if (!(error instanceof SvcApiError)) throw error;
  return error;
}

const card = (vendor: string, extra: Partial<RecordCreate> = {}): RecordCreate => ({
  type: 'CARD_EXPENSE_POST',
  amount: { amount: 25, currency: 'USD' },
  posted_at: '2026-06-11T09:09:05Z',
  vendor: { id: `v_${vendor}`, name: vendor },
  ...extra,
});

describeLive('SDK: coding suggestions', (s) => {
  it('reads one record’s and a page’s suggestions and accepts them (409 on a stale version), typed', async () => {
    const client = await clientOf(s.live);
    const field = await client.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
    const { items: values } = await client.fieldValues.create(field.svc_id, [
      { value: '6010 Meals' },
      { value: '6020 Travel' },
    ]);
    const travel = { field_id: field.svc_id, svc_id: values[1]!.svc_id };
    const lines = [{ amount: { amount: 25, currency: 'USD' }, field_values: [travel] }];
    await client.review.createRecords([
      card('Uber', { review_status: 'READY_FOR_EXPORT', lines }),
      card('Uber', { review_status: 'READY_FOR_EXPORT', lines }),
    ]);
    const { items: records } = await client.review.createRecords([card('Uber'), card('Lyft')]);
    const [uber, lyft] = records;

    const one = await client.suggestions.get(uber!.id);
    const expected: CodingSuggestion = {
      line_id: uber!.line_items[0]!.id,
      field_id: field.svc_id,
      field_name: 'GL Account',
      svc_id: travel.svc_id,
      value: '6020 Travel',
      confidence: 1,
      signal: 'VENDOR',
      reason: '2 of the last 2 records of vendor Uber were coded 6020 Travel',
      matching_records: 2,
      coded_records: 2,
    };
    expect(one).toEqual({ accounting_record_id: uber!.id, version: 1, suggestions: [expected] });
    expect(await client.suggestions.list([lyft!.id, uber!.id])).toEqual([
      { accounting_record_id: lyft!.id, version: 1, suggestions: [] },
      one,
    ]);
    const missing = await failure(client.suggestions.get('accr_nope'));
    expect(missing).toBeInstanceOf(SvcNotFoundError);

    const accepted: CodingSuggestionsAccepted = await client.suggestions.accept(
      uber!.id,
      { version: 1 },
      { idempotencyKey: 'accept-1' },
    );
    expect(accepted.record.version).toBe(2);
    expect(accepted.accepted).toEqual([
      { line_id: expected.line_id, ...travel, confidence: 1, signal: 'VENDOR', reason: expected.reason },
    ]);
    // Retried with its key: the same answer, nothing accepted twice.
    expect(await client.suggestions.accept(uber!.id, { version: 1 }, { idempotencyKey: 'accept-1' })).toEqual(accepted);
    const stale = await failure(client.suggestions.accept(uber!.id, { version: 1 }));
    expect(stale).toBeInstanceOf(SvcConflictError);
    expect([stale.status, stale.error_code]).toEqual([409, 'VERSION_CONFLICT']);
  });
});
