import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { vendorsService } from '../../src/modules/integrations/vendors.service.js';
import type { Api } from './api.js';

export const INTEGRATION = '/v3/accounting/integration';
export const INTEGRATIONS = '/internal/v1/integrations';
export const disconnectUrl = (id: string) => `${INTEGRATION}/${id}/disconnect`;
export const reactivateUrl = (id: string) => `${INTEGRATION}/${id}/reactivate`;

/** The scope of the integration operations. */
export const INTEGRATION_WRITE = ['accounting.integration.write'] as const;

/** An integration id as answered. */
export const INTEGRATION_ID = /^int_[0-9a-z]{26}$/;

/** A new vendor id, made as the operator makes one (`svc vendors create`): vendors are the whole service's. */
export async function newVendor(db: Db, name?: string): Promise<string> {
  const vendor = `ERP_${randomBytes(4).toString('hex').toUpperCase()}`;
  await vendorsService.create(db, { vendor, name });
  return vendor;
}

/** The stored integrations of an account, in creation order. */
export function storedIntegrations({ db }: { readonly db: Db }, accountId: string) {
  return db.direct
    .selectFrom('integrations')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('integration_id')
    .execute();
}

/** The reference's create: the account's integration with `vendor`'s account `vendorAccountId`. */
export async function createIntegration(api: Api, vendor: string, vendorAccountId: string) {
  return api.post(INTEGRATION, { vendor, vendor_account_id: vendorAccountId });
}

/** A new integration of the account, as answered. */
export async function connected(api: Api, vendor: string, vendorAccountId = 'acct-1') {
  const res = await createIntegration(api, vendor, vendorAccountId);
  expect(res.status, res.text).toBe(200);
  return res.body;
}
