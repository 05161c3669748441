import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './db/database.js';
import { nowMicros } from './lib/clock.js';
import { authService } from './modules/auth/auth.service.js';
import { idempotencyService } from './modules/idempotency/idempotency.service.js';
import { usersService } from './modules/users/users.service.js';
import { webhooksService } from './modules/webhooks/webhooks.service.js';
import { startStatisticsRefresh } from './speed/statistics.js';

const EVERY_MS = 10 * 60 * 1000;
/** Longer than any request may take (REQUEST_TIMEOUT_MS is at most 10 minutes). */
export const RECEIPT_GRACE_MS = 60 * 60 * 1000;

/**
 * Deletes expired access tokens, idempotency keys, console sessions, password links, stale sign-in counters and
 * webhook events and logs past their retention every ten minutes (once at start too). PostgreSQL's statistics are
 * autovacuum's; only where it is off does the service refresh them itself (src/speed/statistics.ts).
 */
export function startMaintenance(
  db: Db,
  log: FastifyBaseLogger,
  sessionIdleMicros: number,
  sweepReceipts: (graceMs: number) => Promise<number> = async () => 0,
): { stop(): void } {
  const sweep = async () => {
    try {
      // Receipt files no row names (uploads killed before they committed), an hour old: no upload still runs.
      const receiptFiles = await sweepReceipts(RECEIPT_GRACE_MS);
      if (receiptFiles > 0) log.info({ receipt_files: receiptFiles }, 'orphaned receipt files removed');
      const now = nowMicros();
      const tokens = await authService.deleteExpiredTokens(db, now);
      const keys = await idempotencyService.deleteExpired(db, now);
      const ended = await usersService.deleteEnded(db, now, sessionIdleMicros);
      const webhooks = await webhooksService.deleteExpired(db, now);
      if (tokens + keys + ended.sessions + ended.links + ended.throttles + webhooks > 0) {
        log.info(
          {
            tokens,
            idempotency_keys: keys,
            sessions: ended.sessions,
            password_links: ended.links,
            sign_in_throttles: ended.throttles,
            webhooks,
          },
          'expired rows deleted',
        );
      }
    } catch (error) {
      log.warn({ err: error }, 'maintenance sweep failed; will retry');
    }
  };
  const statistics = startStatisticsRefresh(db, {
    refreshed: (tables) => log.info({ tables }, 'planner statistics refreshed'),
    failed: (error) => log.warn({ err: error }, 'statistics refresh failed; will retry'),
  });
  void sweep();
  const timer = setInterval(() => void sweep(), EVERY_MS);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      statistics.stop();
    },
  };
}
