import { expect, it } from 'vitest';
import { vendorsService } from '../src/modules/integrations/vendors.service.js';
import { ADMIN, EXPORT_RESULTS, RECORDS } from './support/accounting.js';
import { describeEachDialect } from './support/context.js';
import { errorBody } from './support/expect.js';
import {
  connected,
  createIntegration,
  disconnectUrl,
  INTEGRATION,
  INTEGRATION_WRITE,
  INTEGRATIONS,
  newVendor,
  reactivateUrl,
  storedIntegrations,
} from './support/integrations.js';

describeEachDialect('integrations: the reference operations', (t) => {
  it('refuses an unknown or disabled vendor with 400, and a vendor disabled later keeps its ACTIVE integrations', async () => {
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const unknown = await createIntegration(api, 'ERP_NOBODY', 'acct-1');
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

    const disabled = await createIntegration(api, vendor, 'acct-1');
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
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const vendor = await newVendor(t.ctx.db);
    const cases: [unknown, { path: string; message: string }[]][] = [
      [
        {},
        [
          { path: '/vendor', message: expect.any(String) },
          { path: '/vendor_account_id', message: expect.any(String) },
        ],
      ],
      [{ vendor, vendor_account_id: '' }, [{ path: '/vendor_account_id', message: expect.any(String) }]],
      [{ vendor: 7, vendor_account_id: 'a' }, [{ path: '/vendor', message: expect.any(String) }]],
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
    const forbidden = await createIntegration(reader, vendor, 'acct-1');
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
