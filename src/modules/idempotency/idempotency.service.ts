import { createHash, randomUUID } from 'node:crypto';
import type { Db, Executor } from '../../db/database.js';
import { errors } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { nowMicros } from '../../lib/clock.js';
import { idempotencyRepository as repo, type IdempotencyKeyIds } from './idempotency.repository.js';

/**
 * Idempotency-Key (Stripe's semantics, status codes of the IETF draft), the rules; src/http/idempotency.ts
 * calls them from the request's hooks.
 *
 * 1. After authentication and validation the key is claimed with an IN_FLIGHT row, committed at once. A DONE
 *    row for the same request is replayed; a different request under the key → 422; an IN_FLIGHT row whose lock
 *    is live → 409.
 * 2. The handler's transaction stores the answer in the same transaction as the change, guarded by the claim's
 *    lock token: a request never commits a change without its result.
 * 3. Any other answer of a claimed request (a business error) is stored as DONE; a 5xx releases the claim so
 *    the client can retry.
 * A request that dies mid-way leaves an IN_FLIGHT row whose lock expires after the lock time; the key can then
 * be claimed again, and the lock token makes sure only one of two claimants commits.
 */
export const RETENTION_MICROS = 24 * 3600 * 1_000_000;

export type { IdempotencyKeyIds };

/** What claiming a key led to: this request may run, or the stored answer of the first one is replayed. */
export type ClaimOutcome =
  { kind: 'claimed'; lockToken: string } | { kind: 'replay'; lockToken: string; status: number; body: string };

export function requestHash(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

export const idempotencyService = {
  /** Claims the key for this request (hash), or finds the answer to replay; 409 while another request runs. */
  async claim(db: Db, ids: IdempotencyKeyIds, hash: string, lockMicros: number): Promise<ClaimOutcome> {
    const lockToken = randomUUID();
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = nowMicros();
      const claimed = await repo.claim(db.direct, {
        ...ids,
        request_hash: hash,
        lock_token: lockToken,
        locked_until: now + lockMicros,
        created_at: now,
        expires_at: now + RETENTION_MICROS,
      });
      if (claimed) return { kind: 'claimed', lockToken };
      const existing = await repo.find(db.direct, ids);
      if (!existing) continue; // deleted in between: claim again
      if (existing.expires_at <= now) {
        await repo.deleteExpired(db.direct, ids, now);
        continue;
      }
      if (existing.request_hash !== hash) throw errors.idempotencyKeyReused();
      if (existing.state === 'DONE') {
        return {
          kind: 'replay',
          lockToken: existing.lock_token,
          status: existing.response_status ?? 200,
          body: existing.response_body ?? '{}',
        };
      }
      if (existing.locked_until > now) throw errors.idempotencyKeyInUse();
      // The first request died holding the key: take it over (only one taker wins the lock token).
      if (await repo.takeOver(db.direct, ids, existing.lock_token, lockToken, now + lockMicros)) {
        return { kind: 'claimed', lockToken };
      }
    }
    throw errors.idempotencyKeyInUse();
  },

  /**
   * Stores the answer in the caller's transaction (the one that made the change). 409 when another request took
   * the key over after this one's lock expired: it, not this one, may write.
   */
  async storeInTransaction(ex: Executor, ids: IdempotencyKeyIds, lockToken: string, status: number, body: string) {
    if (!(await repo.complete(ex, ids, lockToken, status, body))) throw errors.idempotencyKeyInUse();
  },

  /** Stores an answer given outside a write transaction (a business error): a retry replays it. */
  async storeAnswer(db: Db, ids: IdempotencyKeyIds, lockToken: string, status: number, body: string): Promise<void> {
    await repo.complete(db.direct, ids, lockToken, status, body);
  },

  /** Releases the key after a failure (5xx), so that the client can retry at once. */
  async release(db: Db, ids: IdempotencyKeyIds, lockToken: string): Promise<void> {
    await repo.release(db.direct, ids, lockToken);
  },

  /** Deletes every key past its retention (maintenance); returns how many. */
  async deleteExpired(db: Db, now = nowMicros()): Promise<number> {
    return repo.deleteAllExpired(db.direct, now);
  },
};
