import type { FastifyInstance } from 'fastify';

const LOGS_INFO = new Set(['trace', 'debug', 'info']);

/**
 * One log line per request, when it completes: what was asked (method, route template, URL path), how it went
 * (status, milliseconds), and who asked (account, API client or console user), under the request id that the
 * answer's X-Request-Id and error body carry. Fastify's own two lines per request are turned off in app.ts.
 */
export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    if (!LOGS_INFO.has(request.log.level)) return done(); // LOG_LEVEL=warn or quieter: not even the object
    const auth = request.auth;
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? null,
        path: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        account_id: auth?.accountId ?? null,
        actor: auth ? `${auth.actor.type}:${auth.actor.id}` : null,
      },
      'request',
    );
    done();
  });
}
