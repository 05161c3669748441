import { expect, it } from 'vitest';
import { describeEachDialect } from './support/context.js';
import {
  connected,
  createIntegration,
  disconnectUrl,
  INTEGRATION,
  INTEGRATION_WRITE,
  newVendor,
  reactivateUrl,
  storedIntegrations,
} from './support/integrations.js';

describeEachDialect('integrations: races', (t) => {
  it('50 concurrent creates of one account end with one ACTIVE integration, each answered 200 with it or 409 naming it', async () => {
    const api = await t.ctx.as(INTEGRATION_WRITE);
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
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const vendor = await newVendor(t.ctx.db);
    const answers = await Promise.all(Array.from({ length: 50 }, () => createIntegration(api, vendor, 'acct-1')));
    const stored = await storedIntegrations(t.ctx, api.accountId);
    expect(stored).toHaveLength(1);
    expect(new Set(answers.map((r) => `${r.status} ${r.body.integration_id}`))).toEqual(
      new Set([`200 ${stored[0]!.integration_id}`]),
    );
  });

  it('concurrent reactivations of different integrations, with creates among them, leave one ACTIVE', async () => {
    const api = await t.ctx.as(INTEGRATION_WRITE);
    const vendor = await newVendor(t.ctx.db);
    const disabled: string[] = [];
    for (let i = 0; i < 10; i++) {
      const made = await connected(api, vendor, `acct-${i}`);
      expect((await api.post(disconnectUrl(made.integration_id), undefined)).status).toBe(200);
      disabled.push(made.integration_id);
    }
    const requests = Array.from({ length: 50 }, (_, i) =>
      i % 5 === 4
        ? createIntegration(api, vendor, 'acct-new')
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
