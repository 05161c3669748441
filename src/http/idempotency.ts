import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Executor } from '../db/database.js';
import { errors } from '../errors.js';
import {
  idempotencyService,
  KeysInFlight,
  requestHash,
  type Answer,
  type IdempotencyKeyIds,
  type Outcome,
} from '../modules/idempotency/idempotency.service.js';
import { errorBody, toAppError } from './error-handler.js';

/**
 * The Idempotency-Key glue of the request (the rules are the idempotency module's): in preHandler, after
 * authentication and schema validation (so rejected requests store nothing), the stored answer is replayed or the
 * request is let through under the key; `writeTransaction` claims the key in the work's own transaction and
 * stores the answer there; onSend stores an answer given outside it.
 */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface IdempotencyClaim {
  ids: IdempotencyKeyIds;
  hash: string;
  /**
   * running → the request runs under the key (nothing stored yet); stored → its answer is stored; released → it
   * failed, or another request holds the key: nothing is stored, nor will be; replayed → answered from the store.
   */
  state: 'running' | 'stored' | 'released' | 'replayed';
  /** Ends the request's hold on the key in this process (idempotent). */
  leave(): void;
}

function idsOf(request: FastifyRequest, key: string): IdempotencyKeyIds | null {
  if (!request.auth) return null;
  return { account_id: request.auth.accountId, client_id: request.auth.clientId, idempotency_key: key };
}

export function registerIdempotency(app: FastifyInstance, db: Db): void {
  app.decorateRequest('idempotency', null);
  const inFlight = new KeysInFlight();

  // Reads (most requests) pass through without a promise: the hook only starts async work for a keyed write.
  app.addHook('preHandler', (request, reply, done) => {
    const key = request.headers['idempotency-key'];
    const ids = typeof key === 'string' ? idsOf(request, key) : null;
    if (!ids || !request.routeOptions.config.scopes || !WRITES.has(request.method)) return done();
    if (request.routeOptions.config.idempotency === 'refused') return done(errors.idempotencyKeyRefused());
    // A replayed answer has been sent: the chain stops there (no done()).
    enter(request, reply, ids).then(() => {
      if (!reply.sent) done();
    }, done);
  });

  async function enter(request: FastifyRequest, reply: FastifyReply, ids: IdempotencyKeyIds): Promise<void> {
    const hash = requestHash(request.method, request.url, request.body);
    // A request of this process runs under the key: refused at once, before any trip to the database.
    inFlight.check(ids, hash);
    const stored = await idempotencyService.storedAnswer(db, ids, hash);
    if (stored) {
      request.idempotency = { ids, hash, state: 'replayed', leave: () => {} };
      void replay(reply, stored);
      return;
    }
    const leave = inFlight.enter(ids, hash);
    request.idempotency = { ids, hash, state: 'running', leave };
    // Whatever becomes of the request (a client gone early included), its hold on the key ends with the response.
    reply.raw.once('close', leave);
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const claim = request.idempotency;
    if (!claim || claim.state !== 'running') {
      claim?.leave();
      return done(null, payload);
    }
    storeAnswer(request, reply, claim, payload).then(() => done(null, payload), done);
  });

  /** An answer given outside writeTransaction: a business error is stored (a 5xx is not: the key stays free). */
  async function storeAnswer(
    request: FastifyRequest,
    reply: FastifyReply,
    claim: IdempotencyClaim,
    payload: unknown,
  ): Promise<void> {
    try {
      if (reply.statusCode >= 500) {
        claim.state = 'released';
        return;
      }
      if (reply.statusCode < 300) request.log.warn('idempotent write answered outside writeTransaction');
      const answer = { status: reply.statusCode, body: String(payload ?? '') };
      const stored = await idempotencyService.storeAnswer(db, claim.ids, claim.hash, answer);
      claim.state = stored ? 'stored' : 'released';
    } catch (error) {
      // The database failed after the answer was decided: nothing is stored, and the key can be retried.
      claim.state = 'released';
      request.log.error({ err: error }, 'could not store the idempotency result');
    } finally {
      claim.leave();
    }
  }
}

/** Sends an answer stored under the key, as it was stored. */
function replay(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply
    .code(answer.status)
    .header('idempotent-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(answer.body);
}

/**
 * Runs a write in one transaction and, when the request carries an Idempotency-Key, claims the key in that
 * transaction and stores the answer there: the change and its answer commit together, or neither does. A
 * business error (4xx) undoes the work and is stored as the key's answer; the error is thrown on after the
 * commit, for the error handler to send. Returns the body to send (status 200 unless given), or, when the work ran
 * again and found this request's answer stored, the reply that replays it (already sent: a handler returns it to
 * Fastify as it is, and reads nothing from it). `db` may be a `GroupedWrites` (src/speed/grouped-writes.ts): the
 * transaction then may share its commit with others'.
 */
export async function writeTransaction<T>(
  db: Pick<Db, 'write'>,
  request: FastifyRequest,
  reply: FastifyReply,
  work: (ex: Executor) => Promise<T>,
  status = 200,
): Promise<T | FastifyReply> {
  const claim = request.idempotency?.state === 'running' ? request.idempotency : null;
  if (!claim) {
    const body = await db.write(work);
    reply.code(status);
    return body;
  }
  const answers = {
    value(body: T): Answer {
      reply.code(status);
      return { status, body: String(reply.serialize(body)) };
    },
    // Rendered as the error handler will send it: the same status and body.
    error(error: unknown): Answer | null {
      const appError = toAppError(error, request);
      if (appError.status >= 500) return null;
      reply.code(appError.status);
      return { status: appError.status, body: String(reply.serialize(errorBody(appError, request.id))) };
    },
  };
  let outcome: Outcome<T>;
  // A GroupedWrites runs the work again alone when its group's commit is reported failed: that commit may have
  // been done, with this request's answer stored.
  let runs = 0;
  try {
    outcome = await db.write((ex) =>
      idempotencyService.runClaimed(ex, claim.ids, claim.hash, work, answers, runs++ > 0),
    );
  } catch (error) {
    // Rolled back: a failure (5xx), or the key is another request's (409 held, 422 answered). None is stored.
    claim.state = 'released';
    throw error;
  }
  if (outcome.ok === 'replayed') {
    // The key holds this request's answer already (a commit reported failed though done, then run again): that
    // answer, never a 409 for what is stored.
    claim.state = 'replayed';
    claim.leave();
    return replay(reply, outcome.answer);
  }
  claim.state = 'stored';
  if (!outcome.ok) throw outcome.error;
  reply.code(status);
  return outcome.value;
}
