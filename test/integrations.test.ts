import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import {
  connected,
  createIntegration,
  disconnectUrl,
  INTEGRATION,
  INTEGRATION_ID,
  INTEGRATION_WRITE,
  INTEGRATIONS,
  newVendor,
  reactivateUrl,
  storedIntegrations,
} from './support/integrations.js';

/** An integration as the reference's operations answer it. */
const answered = (vendor: string, vendor_account_id: string, status = 'ACTIVE') => ({
  integration_id: expect.stringMatching(INTEGRATION_ID),
  id: expect.stringMatching(INTEGRATION_ID),
  vendor,
  vendor_account_id,
  status,
  created_at: expect.stringMatching(ISO_MICROS),
});

describeEachDialect('integrations: the reference operations', (t) => {
  it('announces each connection and disconnection as an event of the feed, and nothing for an idempotent create', async () => {
    const vendor = await newVendor(t.ctx.db);
    const api = await t.ctx.as([...INTEGRATION_WRITE, 'events.read']);
    const first = await connected(api, vendor);
    await connected(api, vendor); // the same again: the existing one, no new event
    expect((await api.post(disconnectUrl(first.integration_id), {})).status).toBe(200);
    expect((await api.post(reactivateUrl(first.integration_id), {})).status).toBe(200);
    const feed = await api.get('/v1/events', { limit: '10' });
    expect(feed.status, feed.text).toBe(200);
    expect(feed.body.items.map((e: any) => [e.type, e.data])).toEqual([
      ['integration.connected', { object: 'integration', id: first.integration_id }],
      ['integration.disconnected', { object: 'integration', id: first.integration_id }],
      ['integration.connected', { object: 'integration', id: first.integration_id }],
    ]);
  });

  it('creates an ACTIVE integration, answering its id as integration_id and as id, and stores it', async () => {
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const vendor = await newVendor(t.ctx.db);
    const res = await createIntegration(api, vendor, 'vendor-acct-42');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual(answered(vendor, 'vendor-acct-42'));
    expect(res.body.id).toBe(res.body.integration_id);
    expect(Object.keys(res.body)).toEqual([
      'integration_id',
      'id',
      'vendor',
      'vendor_account_id',
      'status',
      'created_at',
    ]);
    const stored = await storedIntegrations(t.ctx, api.accountId);
    expect(stored).toEqual([
      {
        account_id: api.accountId,
        integration_id: res.body.integration_id,
        vendor,
        vendor_account_id: 'vendor-acct-42',
        status: 'ACTIVE',
        created_at: expect.any(Number),
        updated_at: stored[0]!.created_at,
        disconnected_at: null,
      },
    ]);
    expect(new Date(res.body.created_at).getTime()).toBe(Math.floor(stored[0]!.created_at / 1000));
  });

  it('answers the ACTIVE integration again for the same vendor and vendor_account_id, and refuses another with 409', async () => {
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const [vendor, other] = [await newVendor(t.ctx.db), await newVendor(t.ctx.db)];
    const first = await connected(api, vendor, 'acct-1');

    const again = await createIntegration(api, vendor, 'acct-1');
    expect([again.status, again.body]).toEqual([200, first]);

    const otherVendor = await createIntegration(api, other, 'acct-1');
    expect(otherVendor.status).toBe(409);
    expect(otherVendor.body).toEqual(
      errorBody('ACTIVE_INTEGRATION_EXISTS', {
        message: 'Cannot create or recreate integration. An active integration with a different vendor already exists.',
        details: { existing_integration_id: first.integration_id, existing_vendor: vendor, requested_vendor: other },
      }),
    );

    const otherAccount = await createIntegration(api, vendor, 'acct-2');
    expect(otherAccount.status).toBe(409);
    expect(otherAccount.body).toEqual(
      errorBody('VENDOR_ACCOUNT_ID_MISMATCH', {
        message:
          'Cannot create integration. An active integration for this vendor already exists with a different vendor account ID.',
        details: {
          existing_integration_id: first.integration_id,
          existing_vendor_account_id: 'acct-1',
          requested_vendor_account_id: 'acct-2',
        },
      }),
    );
    // vendor_account_id is compared exactly.
    expect((await createIntegration(api, vendor, 'ACCT-1')).body.error_code).toBe('VENDOR_ACCOUNT_ID_MISMATCH');
    expect((await storedIntegrations(t.ctx, api.accountId)).map((r) => r.integration_id)).toEqual([
      first.integration_id,
    ]);
  });

  it('disconnects an ACTIVE integration once: then 409 INTEGRATION_NOT_ACTIVE; unknown ids are 404', async () => {
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const vendor = await newVendor(t.ctx.db);
    const made = await connected(api, vendor);

    const res = await api.post(disconnectUrl(made.integration_id), undefined);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...made, status: 'DISABLED' });
    const [stored] = await storedIntegrations(t.ctx, api.accountId);
    expect(stored).toMatchObject({ status: 'DISABLED', disconnected_at: stored!.updated_at });
    expect(stored!.updated_at).toBeGreaterThan(stored!.created_at);

    const again = await api.post(disconnectUrl(made.integration_id), undefined);
    expect(again.status).toBe(409);
    expect(again.body).toEqual(
      errorBody('INTEGRATION_NOT_ACTIVE', {
        message: 'Cannot disconnect integration. Integration is not active.',
        details: { integration_id: made.integration_id, current_status: 'DISABLED' },
      }),
    );
    expect(await storedIntegrations(t.ctx, api.accountId)).toEqual([stored]);

    for (const url of [disconnectUrl('int_unknown'), reactivateUrl('int_unknown')]) {
      const missing = await api.post(url, undefined);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(
        errorBody('NOT_FOUND', { message: 'Integration not found.', details: { integration_id: 'int_unknown' } }),
      );
    }
  });

  it('creates a new integration after a disconnect; reactivates a DISABLED one only while no other is ACTIVE', async () => {
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const [vendor, other] = [await newVendor(t.ctx.db), await newVendor(t.ctx.db)];
    const old = await connected(api, vendor, 'acct-1');
    expect((await api.post(disconnectUrl(old.integration_id), undefined)).status).toBe(200);

    // The same vendor and vendor account: a new integration, as the reference says (no active one exists).
    const renewed = await connected(api, vendor, 'acct-1');
    expect(renewed.integration_id).not.toBe(old.integration_id);
    const refused = await api.post(reactivateUrl(old.integration_id), undefined);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(
      errorBody('ACTIVE_INTEGRATION_EXISTS', {
        message: 'Cannot recreate integration. An active integration for this vendor already exists.',
        details: { existing_integration_id: renewed.integration_id, existing_vendor: vendor, requested_vendor: vendor },
      }),
    );

    expect((await api.post(disconnectUrl(renewed.integration_id), undefined)).status).toBe(200);
    const third = await connected(api, other, 'elsewhere');
    const otherVendor = await api.post(reactivateUrl(old.integration_id), undefined);
    expect(otherVendor.status).toBe(409);
    expect(otherVendor.body.details).toEqual({
      existing_integration_id: third.integration_id,
      existing_vendor: other,
      requested_vendor: vendor,
    });
    expect(otherVendor.body.message).toBe(
      'Cannot create or recreate integration. An active integration with a different vendor already exists.',
    );

    expect((await api.post(disconnectUrl(third.integration_id), undefined)).status).toBe(200);
    const back = await api.post(reactivateUrl(old.integration_id), undefined);
    expect(back.status, back.text).toBe(200);
    expect(back.body).toEqual(old);
    const active = await api.post(reactivateUrl(old.integration_id), undefined);
    expect(active.status).toBe(409);
    expect(active.body).toEqual(
      errorBody('ACTIVE_INTEGRATION_EXISTS', {
        message: `Cannot reactivate integration. Integration ${old.integration_id} is already active.`,
        details: { existing_integration_id: old.integration_id, existing_vendor: vendor, requested_vendor: vendor },
      }),
    );

    const stored = await storedIntegrations(t.ctx, api.accountId);
    expect(stored.map((r) => [r.integration_id, r.status, r.disconnected_at === null])).toEqual([
      [old.integration_id, 'ACTIVE', true],
      [renewed.integration_id, 'DISABLED', false],
      [third.integration_id, 'DISABLED', false],
    ]);
    // The reactivated integration's vendor account holds, so the reference's idempotent create answers it.
    expect((await createIntegration(api, vendor, 'acct-1')).body).toEqual(old);
  });

  it("answers 404 for another account's integration and changes nothing of it", async () => {
    const mine = await t.ctx.as(INTEGRATION_WRITE);
    const theirs = await t.ctx.as(INTEGRATION_WRITE);
    const vendor = await newVendor(t.ctx.db);
    const their = await connected(theirs, vendor);
    const before = await storedIntegrations(t.ctx, theirs.accountId);
    for (const url of [disconnectUrl(their.integration_id), reactivateUrl(their.integration_id)]) {
      const res = await mine.post(url, undefined);
      expect([res.status, res.body.error_code]).toEqual([404, 'NOT_FOUND']);
    }
    // The same vendor account for another svc account is another integration: the rule is per account.
    const own = await connected(mine, vendor);
    expect(own.integration_id).not.toBe(their.integration_id);
    expect(await storedIntegrations(t.ctx, theirs.accountId)).toEqual(before);
    expect((await mine.get(INTEGRATIONS)).body.items.map((i: any) => i.integration_id)).toEqual([own.integration_id]);
  });

  it('replays a create sent again with its Idempotency-Key, and refuses the key for another body', async () => {
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const vendor = await newVendor(t.ctx.db);
    const key = { 'idempotency-key': randomUUID() };
    const first = await api.post(INTEGRATION, { vendor, vendor_account_id: 'a' }, key);
    expect(first.status).toBe(200);
    expect((await api.post(disconnectUrl(first.body.integration_id), undefined)).status).toBe(200);
    // A retry after a lost answer gets the first answer, not a second integration.
    const replay = await api.post(INTEGRATION, { vendor, vendor_account_id: 'a' }, key);
    expect([replay.status, replay.headers['idempotent-replayed'], replay.body]).toEqual([200, 'true', first.body]);
    const reused = await api.post(INTEGRATION, { vendor, vendor_account_id: 'b' }, key);
    expect([reused.status, reused.body.error_code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await storedIntegrations(t.ctx, api.accountId)).toHaveLength(1);

    // A refusal is stored too: replayed after the state changed.
    const disconnectKey = { 'idempotency-key': randomUUID() };
    const refused = await api.post(disconnectUrl(first.body.integration_id), undefined, disconnectKey);
    expect(refused.status).toBe(409);
    expect((await api.post(reactivateUrl(first.body.integration_id), undefined)).status).toBe(200);
    const replayed = await api.post(disconnectUrl(first.body.integration_id), undefined, disconnectKey);
    expect([replayed.status, replayed.body]).toEqual([409, refused.body]);
    expect((await storedIntegrations(t.ctx, api.accountId))[0]!.status).toBe('ACTIVE');
  });
});
