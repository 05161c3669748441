import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './db/dialect.js';
import { nowMicros } from './lib/clock.js';
import { idempotencyRepository } from './http/idempotency.repository.js';
import { authRepository } from './modules/auth/auth.repository.js';

const EVERY_MS = 10 * 60 * 1000;

/** Deletes expired access tokens and idempotency keys every ten minutes (and once at start). */
export function startMaintenance(db: Db, log: FastifyBaseLogger): { stop(): void } {
  const sweep = async () => {
    try {
      const now = nowMicros();
      const tokens = await authRepository.deleteExpiredTokens(db.kysely, now);
      const keys = await idempotencyRepository.deleteAllExpired(db.kysely, now);
      if (tokens + keys > 0) log.info({ tokens, idempotency_keys: keys }, 'expired rows deleted');
    } catch (error) {
      log.warn({ err: error }, 'maintenance sweep failed; will retry');
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
