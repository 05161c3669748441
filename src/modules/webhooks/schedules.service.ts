import type { Executor } from '../../db/database.js';
import type { Tenant } from '../auth/auth.service.js';
import { deliveriesRepository } from './deliveries.repository.js';

/**
 * The account's webhook schedules as if `seconds` had passed (the sandbox's "advance time", docs/sandbox.md): retries
 * waiting for their backoff come due, the three-day retry window and the five-day failing count move on, so that a
 * connector's test sees retries, a delivery given up and an endpoint disabled without waiting days. The dispatcher
 * then acts on them in its next round. Nothing else of the account changes.
 */
export const schedulesService = {
  async advance(ex: Executor, tenant: Tenant, seconds: number): Promise<{ deliveries: number; endpoints: number }> {
    return deliveriesRepository.shiftSchedules(ex, tenant.accountId, seconds * 1_000_000);
  },
};
