import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { errors, type AppError } from '../errors.js';
import { FaultBook, openApiPath, type FaultState } from '../modules/sandbox/faults.service.js';
import { sandboxRoutes } from '../modules/sandbox/sandbox.routes.js';

function failure(fault: FaultState): AppError {
  if (fault.kind === '429') return errors.rateLimited(fault.retryAfter);
  return errors.sandboxFault(fault.kind === '503' ? 503 : 500, fault.retryAfter);
}

/**
 * A sandbox server (SANDBOX=true): the /sandbox/v1 routes, and the hooks that apply a client's fault to its
 * requests. Called from app.ts after authentication and idempotency are registered, so that the fault knows the
 * client (request.auth) and a dropped answer has been stored for its key before the connection goes.
 * Never called on another server: there, no request meets a fault.
 */
export async function registerSandbox(app: FastifyInstance, db: Db, config: Config): Promise<void> {
  const faults = new FaultBook();
  const dropping = new WeakSet<FastifyRequest>();

  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url === undefined ? null : openApiPath(request.routeOptions.url);
    const fault = request.auth ? faults.take(request.auth.clientId, request.method, route) : null;
    if (!fault) return done();
    request.log.info({ fault: fault.kind, route }, 'sandbox fault');
    if (fault.kind === 'delay') {
      setTimeout(done, fault.delayMs);
      return;
    }
    if (fault.kind === 'drop_after_commit') {
      dropping.add(request);
      return done();
    }
    done(failure(fault));
  });

  // After the handler (and its commit): the answer is never written; the client sees the connection end.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (dropping.has(request)) {
      reply.raw.destroy();
      request.raw.socket?.destroy();
    }
    done(null, payload);
  });

  await app.register(sandboxRoutes(db, config.sandboxAdminToken ?? '', faults));
}
