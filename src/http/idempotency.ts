import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Executor } from '../db/database.js';
import { idempotencyService, requestHash, type IdempotencyKeyIds } from '../modules/idempotency/idempotency.service.js';

/**
 * The Idempotency-Key glue of the request (the rules are the idempotency module's): the key is claimed in
 * preHandler, after authentication and schema validation, so rejected requests store nothing; the answer is
 * stored in the handler's transaction (`writeTransaction`), or in onSend for an answer given outside it.
 */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface IdempotencyClaim {
  key: string;
  lockToken: string;
  /** claimed → the handler may write; stored → result written; replayed → answer came from the store. */
  state: 'claimed' | 'stored' | 'replayed';
}

function idsOf(request: FastifyRequest, key: string): IdempotencyKeyIds | null {
  if (!request.auth) return null;
  return { account_id: request.auth.accountId, client_id: request.auth.clientId, idempotency_key: key };
}

export function registerIdempotency(app: FastifyInstance, db: Db, lockMicros: number): void {
  app.decorateRequest('idempotency', null);

  // Reads (most requests) pass through without a promise: the hook only starts async work for a keyed write.
  app.addHook('preHandler', (request, reply, done) => {
    const key = request.headers['idempotency-key'];
    const ids = typeof key === 'string' ? idsOf(request, key) : null;
    if (!ids || !request.routeOptions.config.scopes || !WRITES.has(request.method)) return done();
    // A replayed answer has been sent: the chain stops there (no done()).
    claimKey(request, reply, ids).then(() => {
      if (!reply.sent) done();
    }, done);
  });

  async function claimKey(request: FastifyRequest, reply: FastifyReply, ids: IdempotencyKeyIds): Promise<void> {
    const hash = requestHash(request.method, request.url, request.body);
    const outcome = await idempotencyService.claim(db, ids, hash, lockMicros);
    const key = ids.idempotency_key;
    if (outcome.kind === 'claimed') {
      request.idempotency = { key, lockToken: outcome.lockToken, state: 'claimed' };
      return;
    }
    request.idempotency = { key, lockToken: outcome.lockToken, state: 'replayed' };
    void reply
      .code(outcome.status)
      .header('idempotent-replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(outcome.body);
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const claim = request.idempotency;
    const ids = claim ? idsOf(request, claim.key) : null;
    if (!claim || claim.state !== 'claimed' || !ids) return done(null, payload);
    storeAnswer(request, reply, claim, ids, payload).then(() => done(null, payload), done);
  });

  async function storeAnswer(
    request: FastifyRequest,
    reply: FastifyReply,
    claim: IdempotencyClaim,
    ids: IdempotencyKeyIds,
    payload: unknown,
  ): Promise<void> {
    try {
      if (reply.statusCode >= 500) {
        await idempotencyService.release(db, ids, claim.lockToken);
      } else {
        if (reply.statusCode < 300) request.log.warn('idempotent write answered outside writeTransaction');
        await idempotencyService.storeAnswer(db, ids, claim.lockToken, reply.statusCode, String(payload ?? ''));
      }
      claim.state = 'stored';
    } catch (error) {
      // The database failed after the answer was decided: the lock expires and the key can be retried.
      request.log.error({ err: error }, 'could not store the idempotency result');
    }
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
  work: (ex: Executor) => Promise<T>,
  status = 200,
): Promise<T> {
  const claim = request.idempotency;
  const ids = claim?.state === 'claimed' ? idsOf(request, claim.key) : null;
  const body = await db.write(async (ex) => {
    const body = await work(ex);
    if (claim && ids) {
      reply.code(status);
      await idempotencyService.storeInTransaction(ex, ids, claim.lockToken, status, String(reply.serialize(body)));
    }
    return body;
  });
  // Only once committed: if the commit fails, onSend still sees the claim and releases or records it.
  if (claim && ids) claim.state = 'stored';
  reply.code(status);
  return body;
}
