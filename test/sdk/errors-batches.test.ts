import { expect, expectTypeOf, it } from 'vitest';
import {
  SvcApiError,
  SvcAuthError,
  SvcBatchError,
  SvcClient,
  SvcConflictError,
  SvcIdempotencyError,
  SvcNotFoundError,
  SvcRateLimitError,
  SvcUnavailableError,
  SvcValidationError,
  type ApiErrorCode,
  type ErrorCode,
} from '../../client/src/index.js';
import { ADMIN } from '../support/accounting.js';
import { storedValues } from '../support/stored.js';
import { describeLive } from './live-server.js';

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );

describeLive('SDK: typed errors and batches of any size', (s) => {
  it('raises each error family as its own class, with the codes of the OpenAPI document', async () => {
    const { clientId, clientSecret } = await s.live.credentials([...ADMIN, 'accounting.record.review']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret, maxRetries: 0 });

    const missing = await caught(client.fields.get('fld_missing'));
    expect(missing).toBeInstanceOf(SvcNotFoundError);
    expect(missing).toBeInstanceOf(SvcApiError);
    expect(missing).toMatchObject({ name: 'SvcNotFoundError', status: 404, error_code: 'NOT_FOUND' });

    const invalid = await caught(client.fields.create({ name: '', group: 'ACCOUNTING' }));
    expect(invalid).toBeInstanceOf(SvcValidationError);
    expect((invalid as SvcValidationError).problems).toEqual([{ path: '/name', message: expect.any(String) }]);

    const [record] = (
      await client.review.createRecords([
        {
          type: 'CARD_EXPENSE_POST',
          amount: { amount: 5, currency: 'USD' },
          posted_at: '2026-06-11T09:09:05Z',
          review_status: 'REVIEW',
        },
      ])
    ).items;
    const conflict = await caught(
      client.review.moveRecords({ review_status: 'READY_FOR_EXPORT', records: [{ id: record!.id, version: 9 }] }),
    );
    expect(conflict).toBeInstanceOf(SvcConflictError);
    expect(conflict).toMatchObject({ status: 409, error_code: 'VERSION_CONFLICT' });

    const key = crypto.randomUUID();
    await client.fields.create({ name: 'Once', group: 'USER' }, { idempotencyKey: key });
    const reused = await caught(client.fields.create({ name: 'Other', group: 'USER' }, { idempotencyKey: key }));
    expect(reused).toBeInstanceOf(SvcIdempotencyError);
    expect(reused).toMatchObject({ status: 422, error_code: 'IDEMPOTENCY_KEY_REUSED' });

    const readOnly = await s.live.credentials(['fields.read']);
    const narrow = new SvcClient({ baseUrl: s.live.url, ...readOnly, maxRetries: 0 });
    const forbidden = await caught(narrow.fields.create({ name: 'No', group: 'USER' }));
    expect(forbidden).toBeInstanceOf(SvcAuthError);
    expect(forbidden).toMatchObject({ status: 403, error_code: 'FORBIDDEN' });
    const badSecret = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret: 'wrong', maxRetries: 0 });
    expect(await caught(badSecret.fields.list())).toMatchObject({ name: 'SvcAuthError', error_code: 'invalid_client' });

    const nowhere = new SvcClient({ baseUrl: 'http://127.0.0.1:9', token: 't', maxRetries: 0 });
    expect(await caught(nowhere.fields.list())).toMatchObject({
      name: 'SvcUnavailableError',
      error_code: 'NETWORK_ERROR',
    });
    expect(await caught(nowhere.fields.list())).toBeInstanceOf(SvcUnavailableError);

    // The codes are a union the compiler knows: a catch can narrow on them.
    expectTypeOf<ApiErrorCode>().toExtend<string>();
    expectTypeOf<'VERSION_CONFLICT'>().toExtend<ApiErrorCode>();
    expectTypeOf<'NOT_A_CODE'>().not.toExtend<ApiErrorCode>();
    expectTypeOf<SvcApiError['error_code']>().toEqualTypeOf<ErrorCode>();
  });

  it('creates any number of values 1000 at a time, and says exactly what was applied when a chunk fails', async () => {
    const { clientId, clientSecret, accountId } = await s.live.credentials(['fields.write', 'field_values.write']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret, maxRetries: 0 });
    const field = await client.fields.create({ name: 'GL Account', group: 'ACCOUNTING' });
    const items = Array.from({ length: 2500 }, (_, i) => ({ value: `Account ${i}`, remote_id: `A-${i}` }));
    const created = await client.fieldValues.createAll(field.svc_id, items);
    expect(created.map((v) => v.remote_id)).toEqual(items.map((i) => i.remote_id));
    expect(await storedValues(s.live.ctx, accountId, field.svc_id)).toHaveLength(2500);

    const other = await client.fields.create({ name: 'Department', group: 'ACCOUNTING' });
    const broken = items.map((item, i) => (i === 1500 ? { ...item, value: '' } : item));
    const key = crypto.randomUUID();
    const error = await caught(client.fieldValues.createAll(other.svc_id, broken, { idempotencyKey: key }));
    expect(error).toBeInstanceOf(SvcBatchError);
    const batch = error as SvcBatchError;
    expect(batch.chunks.map((c) => [c.index, c.first, c.count, c.status, c.idempotency_key])).toEqual([
      [0, 0, 1000, 'applied', `${key}.0`],
      [1, 1000, 1000, 'failed', `${key}.1`],
      [2, 2000, 500, 'not_sent', `${key}.2`],
    ]);
    expect(batch.cause).toBeInstanceOf(SvcValidationError);
    expect(batch.message).toMatch(/^Chunk 1 \(items 1000–1999\) failed: .* 1000 of 2500 items were applied/);
    expect(await storedValues(s.live.ctx, accountId, other.svc_id)).toHaveLength(1000);

    // Fixed and sent again with the same key: the applied chunk is replayed, not applied twice.
    const again = await client.fieldValues.createAll(other.svc_id, items, { idempotencyKey: key });
    expect(again).toHaveLength(2500);
    expect(await storedValues(s.live.ctx, accountId, other.svc_id)).toHaveLength(2500);
  });
});

describeLive('SDK: answers that are not waited out, and keys without a secure context', (s) => {
  it('answers a locked sign-in at once: one request, no retry after its 15-minute Retry-After', async () => {
    const { newUser } = await import('../support/console.js');
    const { throttleKeys } = await import('../../src/modules/users/sign-in-throttle.js');
    const user = await newUser(s.live.ctx.db, 'BOOKKEEPER');
    // Refused for 15 minutes from this address, as after many failed sign-ins with this email from it.
    await s.live.ctx.db.direct
      .insertInto('sign_in_throttles')
      .values({
        throttle_key: throttleKeys.password(user.email, '127.0.0.1').pair.hash,
        failures: 15,
        blocked_until: Date.now() * 1000 + 900_000_000,
        updated_at: Date.now() * 1000,
      })
      .execute();
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests++;
      return fetch(input, init);
    };
    const browser = new SvcClient({ baseUrl: s.live.url, session: true, fetch: counting });
    const locked = await caught(browser.session.signIn({ email: user.email, password: user.password }));
    expect(locked).toBeInstanceOf(SvcRateLimitError);
    expect(locked).toMatchObject({ status: 429, error_code: 'SIGN_IN_LOCKED' });
    expect((locked as SvcRateLimitError).retry_after_seconds).toBeGreaterThan(890);
    expect(requests).toBe(1);
  });

  it('makes UUID v4 Idempotency-Keys from getRandomValues where randomUUID is missing (plain HTTP pages)', async () => {
    const { newIdempotencyKey } = await import('../../client/src/transport.js');
    const original = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(globalThis.crypto), 'randomUUID')!;
    Object.defineProperty(Object.getPrototypeOf(globalThis.crypto), 'randomUUID', {
      value: undefined,
      configurable: true,
    });
    try {
      const keys = Array.from({ length: 200 }, () => newIdempotencyKey());
      for (const key of keys)
        expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Set(keys).size).toBe(200);
    } finally {
      Object.defineProperty(Object.getPrototypeOf(globalThis.crypto), 'randomUUID', original);
    }
    expect(typeof globalThis.crypto.randomUUID()).toBe('string');
  });
});

describeLive(
  'SDK: rate limits as their own error',
  (s) => {
    it('raises SvcRateLimitError with the seconds Retry-After gave', async () => {
      const { clientId, clientSecret } = await s.live.credentials(['fields.read']);
      const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret, maxRetries: 0 });
      await client.fields.list();
      await client.fields.list();
      const limited = await caught(client.fields.list());
      expect(limited).toBeInstanceOf(SvcRateLimitError);
      const seconds = (limited as SvcRateLimitError).retry_after_seconds;
      expect(seconds).toBeGreaterThan(0);
      expect(seconds).toBeLessThanOrEqual(60);
    });
  },
  { RATE_LIMIT_MAX: '2' },
);
