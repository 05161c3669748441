import { expect, it } from 'vitest';
import { SvcApiError, SvcClient } from '../../client/src/index.js';
import { storedFields, storedTokens } from '../support/stored.js';
import { describeLive } from './live-server.js';

describeLive('SDK: client, tokens, errors, idempotency', (s) => {
  it('fetches a token with client credentials, reuses it, and covers the fields operations', async () => {
    const { clientId, clientSecret } = await s.live.credentials(['fields.read', 'fields.write']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret });
    const field = await client.fields.create({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL' });
    expect(field).toMatchObject({ name: 'GL Account', group: 'ACCOUNTING', remote_id: 'GL', is_disabled: false });
    expect(await client.fields.get(field.svc_id)).toEqual(field);
    const second = await client.fields.create({ name: 'Department', group: 'USER' });
    expect((await client.fields.list({ limit: 1 })).items).toEqual([field]);
    const all = [];
    for await (const f of client.fields.listAll({ limit: 1 })) all.push(f.svc_id);
    expect(all).toEqual([field.svc_id, second.svc_id]);
    expect((await client.fields.update(field.svc_id, { is_disabled: true })).is_disabled).toBe(true);
    expect(await client.fields.delete(second.svc_id)).toEqual({});

    expect(await storedTokens(s.live.ctx, clientId)).toHaveLength(1);
  });

  it('fetches a new token when the server says the old one expired', async () => {
    const { clientId, clientSecret, accountId } = await s.live.credentials(['fields.read']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret });
    await client.fields.list();
    await s.live.ctx.db.direct
      .updateTable('access_tokens')
      .set({ expires_at: 1 })
      .where('account_id', '=', accountId)
      .execute();
    expect((await client.fields.list()).items).toEqual([]);
    expect(await storedTokens(s.live.ctx, clientId)).toHaveLength(2);
  });

  it('raises SvcApiError with status, error_code, message, details and request_id', async () => {
    const { clientId, clientSecret } = await s.live.credentials(['fields.read']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret });
    const error = await client.fields.get('extended_field_missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcApiError);
    expect(error).toMatchObject({
      status: 404,
      error_code: 'NOT_FOUND',
      message: expect.any(String),
      details: { field_id: 'extended_field_missing' },
      request_id: expect.stringMatching(/^req_/),
    });
    const forbidden = await client.fields.create({ name: 'x', group: 'ERP' }).catch((e: unknown) => e);
    expect(forbidden).toMatchObject({ status: 403, error_code: 'FORBIDDEN' });

    const badToken = new SvcClient({ baseUrl: s.live.url, token: 'svc_at_nope', maxRetries: 0 });
    expect(await badToken.fields.list().catch((e: unknown) => e)).toMatchObject({
      status: 401,
      error_code: 'UNAUTHORIZED',
    });
    const badSecret = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret: 'wrong' });
    expect(await badSecret.fields.list().catch((e: unknown) => e)).toMatchObject({
      status: 401,
      error_code: 'invalid_client',
    });
  });

  it('retries a write whose answer was lost with the same Idempotency-Key: one field, not two', async () => {
    const { clientId, clientSecret, accountId } = await s.live.credentials(['fields.write']);
    let calls = 0;
    // The request reaches the server and is applied, but the connection drops before the answer arrives.
    const lossyFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).endsWith('/v1/fields') && init?.method === 'POST' && calls++ === 0) {
        await response.text();
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    };
    const client = new SvcClient({
      baseUrl: s.live.url,
      clientId,
      clientSecret,
      fetch: lossyFetch,
      retryBaseDelayMs: 1,
    });
    const field = await client.fields.create({ name: 'Once', group: 'ERP' });
    expect(calls).toBe(2);
    expect((await storedFields(s.live.ctx, accountId)).map((f) => f.svc_id)).toEqual([field.svc_id]);
  });

  it("uses the caller's Idempotency-Key: the same create twice answers the same field", async () => {
    const { clientId, clientSecret } = await s.live.credentials(['fields.write', 'fields.read']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret });
    const a = await client.fields.create({ name: 'Dept', group: 'USER' }, { idempotencyKey: 'create-dept-1' });
    const b = await client.fields.create({ name: 'Dept', group: 'USER' }, { idempotencyKey: 'create-dept-1' });
    expect(b).toEqual(a);
    expect((await client.fields.list()).items).toHaveLength(1);
    const reused = await client.fields
      .create({ name: 'Other', group: 'USER' }, { idempotencyKey: 'create-dept-1' })
      .catch((e: unknown) => e);
    expect(reused).toMatchObject({ status: 422, error_code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('stops at once on an aborted signal, and times out a request that takes too long', async () => {
    const { clientId, clientSecret } = await s.live.credentials(['fields.read']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret, maxRetries: 0 });
    const controller = new AbortController();
    controller.abort();
    expect(await client.fields.list({}, { signal: controller.signal }).catch((e: unknown) => e)).toMatchObject({
      status: 0,
      error_code: 'ABORTED',
    });

    // A server that never answers a fields request (the token is fetched as usual): only the timeout ends it.
    const silentFetch: typeof fetch = (input, init) =>
      String(input).includes('/v1/fields')
        ? new Promise((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
          })
        : fetch(input, init);
    const slow = new SvcClient({
      baseUrl: s.live.url,
      clientId,
      clientSecret,
      fetch: silentFetch,
      timeoutMs: 50,
      maxRetries: 1,
      retryBaseDelayMs: 1,
    });
    expect(await slow.fields.list().catch((e: unknown) => e)).toMatchObject({ status: 0, error_code: 'TIMEOUT' });
  });
});
