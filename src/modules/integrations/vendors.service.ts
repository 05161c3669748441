import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import type { VendorsTable } from './integrations.tables.js';
import { vendorsRepository } from './vendors.repository.js';

/** A vendor id: what partners send as `vendor` (ERP_A), chosen by the operator. */
export const VENDOR_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const VENDOR_ID_RULE = 'must be 1 to 64 characters: letters, digits, "_", "-", "." (not first)';

/** A vendor as `svc vendors` prints it. */
export interface VendorDto {
  vendor: string;
  name: string;
  status: 'ACTIVE' | 'DISABLED';
  created_at: string;
  disabled_at: string | null;
}

export function vendorRowToVendor(row: VendorsTable): VendorDto {
  return {
    vendor: row.vendor_id,
    name: row.name,
    status: row.disabled_at === null ? 'ACTIVE' : 'DISABLED',
    created_at: microsToIso(row.created_at),
    disabled_at: row.disabled_at === null ? null : microsToIso(row.disabled_at),
  };
}

async function setDisabled(db: Db, vendorId: string, disabledAt: number | null, now: number): Promise<VendorDto> {
  const row = await vendorsRepository.setDisabled(db.direct, vendorId, disabledAt, now);
  if (!row) throw errors.notFound(`Vendor ${vendorId}`, { vendor: vendorId });
  return vendorRowToVendor(row);
}

/**
 * ERP vendors: "ERP partners must request the service to create a vendor ID for them" (the reference). The
 * operator creates them (`svc vendors create`); an integration can be created or reactivated only with a vendor
 * that exists and is not disabled. Disabling a vendor leaves its ACTIVE integrations as they are (docs/integration.md).
 */
export const vendorsService = {
  async create(db: Db, input: { vendor: string; name?: string }): Promise<VendorDto> {
    if (!VENDOR_ID_PATTERN.test(input.vendor)) throw errors.invalidField('/vendor', VENDOR_ID_RULE);
    const name = (input.name ?? input.vendor).trim();
    if (name.length < 1 || name.length > 255) throw errors.invalidField('/name', 'must be 1 to 255 characters');
    const now = nowMicros();
    const row: VendorsTable = { vendor_id: input.vendor, name, created_at: now, updated_at: now, disabled_at: null };
    if (!(await vendorsRepository.insert(db.direct, row))) {
      throw errors.conflict(`Vendor ${input.vendor} exists already.`, { vendor: input.vendor });
    }
    return vendorRowToVendor(row);
  },

  async list(db: Db): Promise<VendorDto[]> {
    return (await vendorsRepository.list(db.direct)).map(vendorRowToVendor);
  },

  /** No new integration, nor a reactivated one, with this vendor; its ACTIVE integrations stay so. */
  async disable(db: Db, vendorId: string): Promise<VendorDto> {
    const existing = await vendorsRepository.find(db.direct, vendorId);
    const now = nowMicros();
    return setDisabled(db, vendorId, existing?.disabled_at ?? now, now);
  },

  async enable(db: Db, vendorId: string): Promise<VendorDto> {
    return setDisabled(db, vendorId, null, nowMicros());
  },

  /** Refuses (400, naming `path` of the request) a vendor that does not exist or is disabled. */
  async requireUsable(ex: Executor, vendorId: string, path: string): Promise<void> {
    const vendor = await vendorsRepository.find(ex, vendorId);
    if (!vendor) throw errors.vendorUnusable(vendorId, 'unknown', path);
    if (vendor.disabled_at !== null) throw errors.vendorUnusable(vendorId, 'disabled', path);
  },
};
