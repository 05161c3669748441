import { auditService, type AuditSource } from '../audit/audit.service.js';
import { eventsService } from '../webhooks/events.service.js';
import type { Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { openCursor, sealCursor } from '../../lib/cursor.js';
import { newId } from '../../lib/ids.js';
import { pageLinks, pageOf, type PageLinks } from '../../lib/pagination.js';
import type { AuthContext, Tenant } from '../auth/auth.service.js';
import { integrationsRepository as repo } from './integrations.repository.js';
import type { CreateIntegration, IntegrationDto, IntegrationListingDto } from './integrations.schemas.js';
import type { IntegrationsTable } from './integrations.tables.js';
import { vendorsService } from './vendors.service.js';

export type { IntegrationDto } from './integrations.schemas.js';

export const INTEGRATION_ID_PREFIX = 'int';

/**
 * How many times a write reads the account's ACTIVE integration again after another request changed it between
 * its read and its write (PostgreSQL: committed meanwhile). One more read answers it; more takes a create, a
 * disconnect and another create all landing inside one request's few statements.
 */
const ATTEMPTS = 5;

/** A stored integration as the reference's operations answer it: its id under both names (docs/integration.md). */
export function integrationRowToIntegration(row: IntegrationsTable): IntegrationDto {
  return {
    integration_id: row.integration_id,
    id: row.integration_id,
    vendor: row.vendor,
    vendor_account_id: row.vendor_account_id,
    status: row.status,
    created_at: microsToIso(row.created_at),
  };
}

function integrationRowToListing(row: IntegrationsTable & { vendor_name: string | null }): IntegrationListingDto {
  return {
    ...integrationRowToIntegration(row),
    vendor_name: row.vendor_name,
    updated_at: microsToIso(row.updated_at),
    disconnected_at: row.disconnected_at === null ? null : microsToIso(row.disconnected_at),
  };
}

/** The reference's create against the account's ACTIVE integration: the same one, or 409 naming the clash. */
function sameOrRefused(active: IntegrationsTable, input: CreateIntegration): IntegrationDto {
  if (active.vendor !== input.vendor) {
    throw errors.activeIntegrationExists(
      'Cannot create or recreate integration. An active integration with a different vendor already exists.',
      active,
      input.vendor,
    );
  }
  if (active.vendor_account_id !== input.vendor_account_id) {
    throw errors.vendorAccountIdMismatch(active, input.vendor_account_id);
  }
  return integrationRowToIntegration(active);
}

/**
 * The integration operations of the reference (POST /v3/accounting/integration, …/disconnect, …/reactivate) and
 * the account's list. Each write runs in its caller's transaction; the rule of one ACTIVE integration per account
 * is the database's (a partial unique index), so concurrent requests cannot break it: the one that loses reads
 * the winner and answers as if it had come second.
 */
export const integrationsService = {
  /**
   * No ACTIVE integration: a new one. An ACTIVE one with the same vendor and vendor_account_id: that one (the
   * create is idempotent). Another vendor: 409 ACTIVE_INTEGRATION_EXISTS; the same vendor with another
   * vendor_account_id: 409 VENDOR_ACCOUNT_ID_MISMATCH. An unknown or disabled vendor: 400.
   */
  async create(ex: Executor, tenant: AuditSource, input: CreateIntegration): Promise<IntegrationDto> {
    await vendorsService.requireUsable(ex, input.vendor, '/vendor');
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const active = await repo.findActive(ex, tenant.accountId);
      if (active) return sameOrRefused(active, input);
      const now = nowMicros();
      const row: IntegrationsTable = {
        account_id: tenant.accountId,
        integration_id: newId(INTEGRATION_ID_PREFIX),
        vendor: input.vendor,
        vendor_account_id: input.vendor_account_id,
        status: 'ACTIVE',
        created_at: now,
        updated_at: now,
        disconnected_at: null,
      };
      if (await repo.insertActive(ex, row)) {
        // Last: the account's event counter stays locked until the commit.
        await auditService.record(
          ex,
          tenant,
          'integration.created',
          { type: 'integration', id: row.integration_id },
          {
            vendor: row.vendor,
            vendor_account_id: row.vendor_account_id,
          },
        );
        await eventsService.emit(ex, tenant, [{ type: 'integration.connected', integrationId: row.integration_id }]);
        return integrationRowToIntegration(row);
      }
    }
    throw errors.internal();
  },

  /** The account's integration; NOT_FOUND when unknown (or another account's). */
  async get(ex: Executor, tenant: Tenant, integrationId: string): Promise<IntegrationDto> {
    const row = await repo.find(ex, tenant.accountId, integrationId);
    if (!row) throw errors.notFound('Integration', { integration_id: integrationId });
    return integrationRowToIntegration(row);
  },

  /** ACTIVE → DISABLED. Unknown (or another account's) → 404; not ACTIVE → 409 INTEGRATION_NOT_ACTIVE. */
  async disconnect(ex: Executor, tenant: AuditSource, integrationId: string): Promise<IntegrationDto> {
    const row = await repo.disconnect(ex, tenant.accountId, integrationId, nowMicros());
    if (row) {
      await auditService.record(ex, tenant, 'integration.disconnected', { type: 'integration', id: integrationId });
      await eventsService.emit(ex, tenant, [{ type: 'integration.disconnected', integrationId }]);
      return integrationRowToIntegration(row);
    }
    const current = await repo.find(ex, tenant.accountId, integrationId);
    if (!current) throw errors.notFound('Integration', { integration_id: integrationId });
    throw errors.integrationNotActive(integrationId, current.status);
  },

  /**
   * DISABLED → ACTIVE. Unknown → 404; the account has an ACTIVE integration (this one included) → 409
   * ACTIVE_INTEGRATION_EXISTS naming it; its vendor disabled since → 400.
   */
  async reactivate(ex: Executor, tenant: AuditSource, integrationId: string): Promise<IntegrationDto> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const row = await repo.find(ex, tenant.accountId, integrationId);
      if (!row) throw errors.notFound('Integration', { integration_id: integrationId });
      const active = row.status === 'ACTIVE' ? row : await repo.findActive(ex, tenant.accountId);
      if (active) {
        throw errors.activeIntegrationExists(
          active.integration_id === integrationId
            ? `Cannot reactivate integration. Integration ${integrationId} is already active.`
            : active.vendor !== row.vendor
              ? 'Cannot create or recreate integration. An active integration with a different vendor already exists.'
              : 'Cannot recreate integration. An active integration for this vendor already exists.',
          active,
          row.vendor,
        );
      }
      if (attempt === 1) await vendorsService.requireUsable(ex, row.vendor, '/params/integration_id');
      const done = await repo.reactivate(ex, tenant.accountId, integrationId, nowMicros());
      if (done && done !== 'clash') {
        await auditService.record(ex, tenant, 'integration.reactivated', { type: 'integration', id: integrationId });
        await eventsService.emit(ex, tenant, [{ type: 'integration.connected', integrationId }]);
        return integrationRowToIntegration(done);
      }
      // Another request made an integration ACTIVE (this one, or another) since the reads: read again, answer that.
    }
    throw errors.internal();
  },

  /** The account's integrations, ACTIVE and DISABLED, in creation order. */
  async list(
    ex: Executor,
    auth: AuthContext,
    query: { cursor?: string; limit: number },
  ): Promise<{ items: IntegrationListingDto[] } & PageLinks> {
    const afterId = query.cursor ? String(openCursor(auth.cursorKey, 'integrations', {}, query.cursor)[0]) : undefined;
    const page = pageOf(await repo.list(ex, auth.accountId, { afterId, limit: query.limit }), query.limit);
    return {
      items: page.items.map(integrationRowToListing),
      ...pageLinks(page, (last) => sealCursor(auth.cursorKey, 'integrations', {}, [last.integration_id])),
    };
  },
};
