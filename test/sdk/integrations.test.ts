import { expect, it } from 'vitest';
import { SvcClient, SvcConflictError, type Integration } from '../../client/src/index.js';
import { newVendor } from '../support/integrations.js';
import { describeLive } from './live-server.js';

describeLive('SDK: accounting integrations', (s) => {
  it('creates (idempotently), disconnects, reactivates and lists integrations, typed', async () => {
    const { clientId, clientSecret } = await s.live.credentials(['accounting.integration.write']);
    const client = new SvcClient({ baseUrl: s.live.url, clientId, clientSecret });
    const [vendor, other] = [await newVendor(s.live.ctx.db), await newVendor(s.live.ctx.db)];

    const made: Integration = await client.integrations.create({ vendor, vendor_account_id: 'acme-in-erp' });
    expect(made).toMatchObject({ id: made.integration_id, vendor, vendor_account_id: 'acme-in-erp', status: 'ACTIVE' });
    expect(await client.integrations.create({ vendor, vendor_account_id: 'acme-in-erp' })).toEqual(made);
    const refused = await client.integrations
      .create({ vendor: other, vendor_account_id: 'x' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcConflictError);
    expect(refused).toMatchObject({
      status: 409,
      error_code: 'ACTIVE_INTEGRATION_EXISTS',
      details: { existing_integration_id: made.integration_id, existing_vendor: vendor, requested_vendor: other },
    });

    expect(await client.integrations.disconnect(made.integration_id)).toEqual({ ...made, status: 'DISABLED' });
    const again = await client.integrations.disconnect(made.integration_id).catch((e: unknown) => e);
    expect(again).toMatchObject({ status: 409, error_code: 'INTEGRATION_NOT_ACTIVE' });
    const second = await client.integrations.create({ vendor: other, vendor_account_id: 'x' });
    await client.integrations.disconnect(second.integration_id);
    expect(await client.integrations.reactivate(made.integration_id)).toEqual(made);

    const page = await client.integrations.list({ limit: 1 });
    expect(page.items.map((i) => [i.integration_id, i.status, i.disconnected_at])).toEqual([
      [made.integration_id, 'ACTIVE', null],
    ]);
    const all: string[] = [];
    for await (const i of client.integrations.listAll({ limit: 1 })) all.push(`${i.integration_id} ${i.status}`);
    expect(all).toEqual([`${made.integration_id} ACTIVE`, `${second.integration_id} DISABLED`]);
  });
});
