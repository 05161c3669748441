import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/dialect.js';
import type { Executor } from '../db/database.js';
import { errors } from '../errors.js';
import { nowMicros } from '../lib/clock.js';
import { idempotencyRepository } from './idempotency.repository.js';

/**
 * Idempotency-Key (CONVENTIONS.md; Stripe's semantics, status codes of the IETF draft).
 *
 * 1. preHandler (after authentication and schema validation, so rejected requests store nothing): the key
 *    is claimed with an IN_FLIGHT row, committed at once. A DONE row for the same request is replayed; a
 *    different request under the key → 422; an IN_FLIGHT row whose lock is live → 409.
 * 2. The handler's transaction (`writeTransaction`) stores the response in the same transaction as the
 *    change, guarded by the claim's lock token: a request never commits a change without its result.
 * 3. onSend: any other answer of a claimed request (a business error thrown before or inside the
 *    transaction) is stored as DONE; a 5xx releases the claim so the client can retry.
 * A request that dies mid-way leaves an IN_FLIGHT row whose lock expires after LOCK_MICROS; the key can
 * then be claimed again, and the lock token makes sure only one of two claimants commits.
 */
export const RETENTION_MICROS = 24 * 3600 * 1_000_000;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface IdempotencyClaim {
  key: string;
  requestHash: string;
  lockToken: string;
  /** claimed → the handler may write; stored → result written; replayed → answer came from the store. */
  state: 'claimed' | 'stored' | 'replayed';
}

/** Deeper than any request of the API nests; a body beyond it is refused before it can exhaust the stack. */
export const MAX_JSON_DEPTH = 64;

/** JSON with sorted keys, so that two equal bodies hash alike whatever their key order. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_JSON_DEPTH) throw errors.invalidField('', `must not nest deeper than ${MAX_JSON_DEPTH} levels`);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v, depth + 1)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, depth + 1)}`).join(',')}}`;
}

export function requestHash(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

function replay(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(body);
}

export function registerIdempotency(app: FastifyInstance, db: Db, lockMicros: number): void {
  app.decorateRequest('idempotency', null);

  // Reads (most requests) pass through without a promise: the hook only starts async work for a keyed write.
  app.addHook('preHandler', (request, reply, done) => {
    const key = request.headers['idempotency-key'];
    if (!request.auth || typeof key !== 'string' || !request.routeOptions.config.scopes || !WRITES.has(request.method))
      return done();
    // A replayed answer has been sent: the chain stops there (no done()).
    claimKey(request, reply, key).then(() => {
      if (!reply.sent) done();
    }, done);
  });

  async function claimKey(request: FastifyRequest, reply: FastifyReply, key: string): Promise<void> {
    const auth = request.auth!;

    const hash = requestHash(request.method, request.url, request.body);
    const lockToken = randomUUID();
    const ids = { account_id: auth.accountId, client_id: auth.clientId, idempotency_key: key };
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = nowMicros();
      const claimed = await idempotencyRepository.claim(db.kysely, {
        ...ids,
        request_hash: hash,
        lock_token: lockToken,
        locked_until: now + lockMicros,
        created_at: now,
        expires_at: now + RETENTION_MICROS,
      });
      if (claimed) {
        request.idempotency = { key, requestHash: hash, lockToken, state: 'claimed' };
        return;
      }
      const existing = await idempotencyRepository.find(db.kysely, ids);
      if (!existing) continue; // deleted in between: claim again
      if (existing.expires_at <= now) {
        await idempotencyRepository.deleteExpired(db.kysely, ids, now);
        continue;
      }
      if (existing.request_hash !== hash) throw errors.idempotencyKeyReused();
      if (existing.state === 'DONE') {
        request.idempotency = { key, requestHash: hash, lockToken: existing.lock_token, state: 'replayed' };
        replay(reply, existing.response_status ?? 200, existing.response_body ?? '{}');
        return;
      }
      if (existing.locked_until > now) throw errors.idempotencyKeyInUse();
      // The first request died holding the key: take it over (only one taker wins the lock token).
      if (await idempotencyRepository.takeOver(db.kysely, ids, existing.lock_token, lockToken, now + lockMicros)) {
        request.idempotency = { key, requestHash: hash, lockToken, state: 'claimed' };
        return;
      }
    }
    throw errors.idempotencyKeyInUse();
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const claim = request.idempotency;
    if (!claim || claim.state !== 'claimed' || !request.auth) return done(null, payload);
    storeAnswer(request, reply, claim, payload).then((stored) => done(null, stored), done);
  });

  async function storeAnswer(
    request: FastifyRequest,
    reply: FastifyReply,
    claim: IdempotencyClaim,
    payload: unknown,
  ): Promise<unknown> {
    const ids = { account_id: request.auth!.accountId, client_id: request.auth!.clientId, idempotency_key: claim.key };
    try {
      if (reply.statusCode >= 500) {
        await idempotencyRepository.release(db.kysely, ids, claim.lockToken);
      } else {
        if (reply.statusCode < 300) request.log.warn('idempotent write answered outside writeTransaction');
        await idempotencyRepository.complete(db.kysely, ids, claim.lockToken, reply.statusCode, String(payload ?? ''));
      }
      claim.state = 'stored';
    } catch (error) {
      // The database failed after the answer was decided: the lock expires and the key can be retried.
      request.log.error({ err: error }, 'could not store the idempotency result');
    }
    return payload;
  }
}

/**
 * Runs a write in one transaction and, when the request carries an Idempotency-Key, stores the answer in
 * that same transaction. Returns the body to send (status 200 unless given).
 */
export async function writeTransaction<T>(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (trx: Executor) => Promise<T>,
  status = 200,
): Promise<T> {
  const claim = request.idempotency;
  let stored = false;
  const body = await db.kysely.transaction().execute(async (trx) => {
    const body = await work(trx);
    if (claim && claim.state === 'claimed' && request.auth) {
      reply.code(status);
      const serialized = reply.serialize(body) as string;
      const completed = await idempotencyRepository.complete(
        trx,
        { account_id: request.auth.accountId, client_id: request.auth.clientId, idempotency_key: claim.key },
        claim.lockToken,
        status,
        serialized,
      );
      // Another request took the key over after our lock expired: it, not we, may write.
      if (!completed) throw errors.idempotencyKeyInUse();
      stored = true;
    }
    return body;
  });
  // Only once committed: if the commit fails, onSend still sees the claim and releases or records it.
  if (claim && stored) claim.state = 'stored';
  reply.code(status);
  return body;
}
