import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { vendorsService } from '../src/modules/integrations/vendors.service.js';
import { ADMIN, EXPORT_RESULTS, RECORDS } from './support/accounting.js';
import type { Api } from './support/api.js';
import { describeEachDialect } from './support/context.js';
import { errorBody, ISO_MICROS } from './support/expect.js';
import {
  disconnectUrl,
  INTEGRATION,
  INTEGRATION_ID,
  INTEGRATIONS,
  newVendor,
  reactivateUrl,
  storedIntegrations,
} from './support/integrations.js';

const WRITE = ['accounting.integration.write'] as const;

/** An integration as the reference's operations answer it. */
const answered = (vendor: string, vendor_account_id: string, status = 'ACTIVE') => ({
  integration_id: expect.stringMatching(INTEGRATION_ID),
  id: expect.stringMatching(INTEGRATION_ID),
  vendor,
  vendor_account_id,
  status,
  created_at: expect.stringMatching(ISO_MICROS),
});

async function create(api: Api, vendor: string, vendorAccountId: string) {
  return api.post(INTEGRATION, { vendor, vendor_account_id: vendorAccountId });
}

/** A new integration of the account, as answered. */
async function connected(api: Api, vendor: string, vendorAccountId = 'acct-1') {
  const res = await create(api, vendor, vendorAccountId);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describeEachDialect('integrations: the reference operations', (t) => {
  it('announces each connection and disconnection as an event of the feed, and nothing for an idempotent create', async () => {
    const vendor = await newVendor(t.ctx.db);
    const api = await t.ctx.as([...WRITE, 'events.read']);
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
    const api = await t.ctx.as(WRITE);
    const vendor = await newVendor(t.ctx.db);
    const res = await create(api, vendor, 'vendor-acct-42');
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
    const api = await t.ctx.as(WRITE);
    const [vendor, other] = [await newVendor(t.ctx.db), await newVendor(t.ctx.db)];
    const first = await connected(api, vendor, 'acct-1');

    const again = await create(api, vendor, 'acct-1');
    expect([again.status, again.body]).toEqual([200, first]);

    const otherVendor = await create(api, other, 'acct-1');
    expect(otherVendor.status).toBe(409);
    expect(otherVendor.body).toEqual(
      errorBody('ACTIVE_INTEGRATION_EXISTS', {
        message: 'Cannot create or recreate integration. An active integration with a different vendor already exists.',
        details: { existing_integration_id: first.integration_id, existing_vendor: vendor, requested_vendor: other },
      }),
    );

    const otherAccount = await create(api, vendor, 'acct-2');
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
    expect((await create(api, vendor, 'ACCT-1')).body.error_code).toBe('VENDOR_ACCOUNT_ID_MISMATCH');
    expect((await storedIntegrations(t.ctx, api.accountId)).map((r) => r.integration_id)).toEqual([
      first.integration_id,
    ]);
  });

  it('disconnects an ACTIVE integration once: then 409 INTEGRATION_NOT_ACTIVE; unknown ids are 404', async () => {
    const api = await t.ctx.as(WRITE);
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
    const api = await t.ctx.as(WRITE);
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
    expect((await create(api, vendor, 'acct-1')).body).toEqual(old);
  });

  it("answers 404 for another account's integration and changes nothing of it", async () => {
    const mine = await t.ctx.as(WRITE);
    const theirs = await t.ctx.as(WRITE);
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

  it('refuses an unknown or disabled vendor with 400, and a vendor disabled later keeps its ACTIVE integrations', async () => {
    const api = await t.ctx.as(WRITE);
    const unknown = await create(api, 'ERP_NOBODY', 'acct-1');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(
      errorBody('INVALID_REQUEST', {
        message:
          "Vendor ERP_NOBODY is not a vendor of this service: ERP partners get their vendor id from the service's operator.",
        details: { errors: [{ path: '/vendor', message: 'names no vendor of this service' }] },
      }),
    );

    const vendor = await newVendor(t.ctx.db);
    const made = await connected(api, vendor);
    await vendorsService.disable(t.ctx.db, vendor);
    // Disabling a vendor stops new connections; the account's own stays until the account or partner ends it.
    expect((await storedIntegrations(t.ctx, api.accountId))[0]!.status).toBe('ACTIVE');
    expect((await api.get(INTEGRATIONS)).body.items[0].status).toBe('ACTIVE');
    expect((await api.post(disconnectUrl(made.integration_id), undefined)).status).toBe(200);

    const disabled = await create(api, vendor, 'acct-1');
    expect(disabled.status).toBe(400);
    expect(disabled.body).toEqual(
      errorBody('INVALID_REQUEST', {
        message: `Vendor ${vendor} is disabled: no integration with it can be created or reactivated.`,
        details: { errors: [{ path: '/vendor', message: `names disabled vendor ${vendor}` }] },
      }),
    );
    const reactivate = await api.post(reactivateUrl(made.integration_id), undefined);
    expect(reactivate.status).toBe(400);
    expect(reactivate.body.details).toEqual({
      errors: [{ path: '/params/integration_id', message: `names disabled vendor ${vendor}` }],
    });
    expect((await storedIntegrations(t.ctx, api.accountId)).map((r) => r.status)).toEqual(['DISABLED']);

    await vendorsService.enable(t.ctx.db, vendor);
    expect((await api.post(reactivateUrl(made.integration_id), undefined)).body).toEqual(made);
  });

  it('validates the body: both members required, non-empty strings, nothing else', async () => {
    const api = await t.ctx.as(WRITE);
    const vendor = await newVendor(t.ctx.db);
    const cases: [unknown, { path: string; message: string }[]][] = [
      [
        {},
        [
          { path: '/vendor', message: expect.any(String) },
          { path: '/vendor_account_id', message: expect.any(String) },
        ],
      ],
      [
        { vendor, vendor_account_id: '' },
        [{ path: '/vendor_account_id', message: 'must NOT have fewer than 1 characters' }],
      ],
      [{ vendor: 7, vendor_account_id: 'a' }, [{ path: '/vendor', message: 'must be string' }]],
      [{ vendor, vendor_account_id: 'a', status: 'DISABLED' }, [{ path: '/status', message: expect.any(String) }]],
      [{ vendor, vendor_account_id: 'x'.repeat(256) }, [{ path: '/vendor_account_id', message: expect.any(String) }]],
    ];
    for (const [body, problems] of cases) {
      const res = await api.post(INTEGRATION, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body).toEqual(errorBody('INVALID_REQUEST', { details: { errors: problems } }));
    }
    expect(await storedIntegrations(t.ctx, api.accountId)).toEqual([]);
  });

  it('takes accounting.integration.write for the three operations; .read or .write for the list', async () => {
    const vendor = await newVendor(t.ctx.db);
    const reader = await t.ctx.as(['accounting.integration.read', ...ADMIN]);
    const forbidden = await create(reader, vendor, 'acct-1');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual(
      errorBody('FORBIDDEN', { details: { required_scopes: ['accounting.integration.write'] } }),
    );
    expect(forbidden.headers['www-authenticate']).toBe(
      'Bearer realm="svc", error="insufficient_scope", scope="accounting.integration.write"',
    );
    expect((await reader.get(INTEGRATIONS)).status).toBe(200);
    const records = await t.ctx.as(['accounting.record.read', 'accounting.record.write']);
    expect((await records.get(INTEGRATIONS)).status).toBe(403);
  });

  it('replays a create sent again with its Idempotency-Key, and refuses the key for another body', async () => {
    const api = await t.ctx.as(WRITE);
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

describeEachDialect("integrations: the account's list (GET /internal/v1/integrations, svc's own)", (t) => {
  it('lists current and past integrations in creation order, with when their status changed, page by page', async () => {
    const api = await t.ctx.as(['accounting.integration.write']);
    const [a, b] = [await newVendor(t.ctx.db), await newVendor(t.ctx.db)];
    const ids: string[] = [];
    for (const [vendor, acct] of [
      [a, 'one'],
      [b, 'two'],
      [a, 'three'],
    ] as const) {
      const made = await connected(api, vendor, acct);
      ids.push(made.integration_id);
      if (ids.length < 3) expect((await api.post(disconnectUrl(made.integration_id), undefined)).status).toBe(200);
    }
    const all = await api.get(INTEGRATIONS);
    expect(all.status).toBe(200);
    const stored = await storedIntegrations(t.ctx, api.accountId);
    expect(all.body).toEqual({
      items: stored.map((row, i) => ({
        integration_id: ids[i],
        id: ids[i],
        vendor: row.vendor,
        vendor_account_id: row.vendor_account_id,
        status: i < 2 ? 'DISABLED' : 'ACTIVE',
        created_at: expect.stringMatching(ISO_MICROS),
        updated_at: expect.stringMatching(ISO_MICROS),
        disconnected_at: i < 2 ? expect.stringMatching(ISO_MICROS) : null,
      })),
      next_cursor: null,
    });
    expect(all.body.items[0].disconnected_at).toBe(all.body.items[0].updated_at);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api.get(INTEGRATIONS, { limit: '2', ...(cursor ? { cursor } : {}) });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((i: any) => i.integration_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids);

    const other = await t.ctx.as(['accounting.integration.read']);
    expect((await other.get(INTEGRATIONS)).body).toEqual({ items: [], next_cursor: null });
    const first = await api.get(INTEGRATIONS, { limit: '1' });
    const foreign = await other.get(INTEGRATIONS, { cursor: first.body.next_cursor });
    expect([foreign.status, foreign.body.error_code]).toEqual([400, 'INVALID_CURSOR']);
    expect((await api.get(INTEGRATIONS, { limit: '0' })).status).toBe(400);
  });
});

describeEachDialect('integrations: races', (t) => {
  it('50 concurrent creates of one account end with one ACTIVE integration, each answered 200 with it or 409 naming it', async () => {
    const api = await t.ctx.as(WRITE);
    const vendors = [await newVendor(t.ctx.db), await newVendor(t.ctx.db)];
    const bodies = Array.from({ length: 50 }, (_, i) => ({
      vendor: vendors[i % 2]!,
      vendor_account_id: i % 3 === 0 ? 'acct-x' : 'acct-y',
    }));
    const answers = await Promise.all(bodies.map((body) => api.post(INTEGRATION, body)));
    const stored = await storedIntegrations(t.ctx, api.accountId);
    expect(stored).toHaveLength(1);
    const [winner] = stored;
    expect(winner!.status).toBe('ACTIVE');
    for (const [i, res] of answers.entries()) {
      const body = bodies[i]!;
      if (body.vendor === winner!.vendor && body.vendor_account_id === winner!.vendor_account_id) {
        expect([res.status, res.body.integration_id]).toEqual([200, winner!.integration_id]);
      } else {
        expect(res.status, res.text).toBe(409);
        expect(res.body.error_code).toBe(
          body.vendor === winner!.vendor ? 'VENDOR_ACCOUNT_ID_MISMATCH' : 'ACTIVE_INTEGRATION_EXISTS',
        );
        expect(res.body.details.existing_integration_id).toBe(winner!.integration_id);
      }
    }
  });

  it('50 concurrent identical creates answer one integration, 50 times', async () => {
    const api = await t.ctx.as(WRITE);
    const vendor = await newVendor(t.ctx.db);
    const answers = await Promise.all(Array.from({ length: 50 }, () => create(api, vendor, 'acct-1')));
    const stored = await storedIntegrations(t.ctx, api.accountId);
    expect(stored).toHaveLength(1);
    expect(new Set(answers.map((r) => `${r.status} ${r.body.integration_id}`))).toEqual(
      new Set([`200 ${stored[0]!.integration_id}`]),
    );
  });

  it('concurrent reactivations of different integrations, with creates among them, leave one ACTIVE', async () => {
    const api = await t.ctx.as(WRITE);
    const vendor = await newVendor(t.ctx.db);
    const disabled: string[] = [];
    for (let i = 0; i < 10; i++) {
      const made = await connected(api, vendor, `acct-${i}`);
      expect((await api.post(disconnectUrl(made.integration_id), undefined)).status).toBe(200);
      disabled.push(made.integration_id);
    }
    const requests = Array.from({ length: 50 }, (_, i) =>
      i % 5 === 4
        ? create(api, vendor, 'acct-new')
        : api.post(reactivateUrl(disabled[i % disabled.length]!), undefined),
    );
    const answers = await Promise.all(requests);
    const active = (await storedIntegrations(t.ctx, api.accountId)).filter((r) => r.status === 'ACTIVE');
    expect(active).toHaveLength(1);
    for (const res of answers) {
      if (res.status === 200) expect(res.body.integration_id).toBe(active[0]!.integration_id);
      else {
        expect(res.status, res.text).toBe(409);
        expect(res.body.details.existing_integration_id).toBe(active[0]!.integration_id);
      }
    }
  });
});

describeEachDialect("integrations: what an integration's status changes elsewhere", (t) => {
  it('nothing yet: records are read and export results accepted while the integration is DISABLED (docs/integration.md)', async () => {
    const api = await t.ctx.as([...ADMIN, 'accounting.integration.write']);
    const vendor = await newVendor(t.ctx.db);
    const made = await connected(api, vendor);
    expect((await api.post(disconnectUrl(made.integration_id), undefined)).status).toBe(200);
    const record = await api.readyRecord();
    expect((await api.get(`${RECORDS}/${record.id}`)).status).toBe(200);
    const report = await api.post(EXPORT_RESULTS, {
      results: [{ accounting_record_id: record.id, success: { reference_id: 'JE-1' } }],
    });
    expect([report.status, report.body]).toEqual([200, { updated_accounting_record_ids: [record.id] }]);
    expect((await api.get(`${RECORDS}/${record.id}`)).body.review_status).toBe('EXPORTED');
  });
});
