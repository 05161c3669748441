import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './db/database.js';
import { refreshStatistics } from './db/statistics.js';
import { nowMicros } from './lib/clock.js';
import { authService } from './modules/auth/auth.service.js';
import { idempotencyService } from './modules/idempotency/idempotency.service.js';
import { usersService } from './modules/users/users.service.js';
import { webhooksService } from './modules/webhooks/webhooks.service.js';

const EVERY_MS = 10 * 60 * 1000;
const STATISTICS_EVERY_MS = 10 * 1000;

/**
 * Deletes expired access tokens, idempotency keys, console sessions, password links, stale sign-in counters and
 * webhook events and logs past their retention every ten minutes, and refreshes stale planner statistics every ten
 * seconds (both once at start; the check is one catalog query).
 */
export function startMaintenance(db: Db, log: FastifyBaseLogger, sessionIdleMicros: number): { stop(): void } {
  let analysing = false;
  const statistics = async () => {
    if (analysing) return; // a vacuum of a large table can outlast the interval
    analysing = true;
    try {
      const analysed = await refreshStatistics(db);
      if (analysed.length > 0) log.info({ tables: analysed }, 'planner statistics refreshed');
    } catch (error) {
      log.warn({ err: error }, 'statistics refresh failed; will retry');
    } finally {
      analysing = false;
    }
  };
  const sweep = async () => {
    try {
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
  void sweep().then(statistics);
  const timer = setInterval(() => void sweep(), EVERY_MS);
  const statisticsTimer = setInterval(() => void statistics(), STATISTICS_EVERY_MS);
  timer.unref();
  statisticsTimer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      clearInterval(statisticsTimer);
    },
  };
}
