import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { operatorToken } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import type { Metrics } from './metrics.js';

const Status = Type.Object({ status: Type.String() });

/**
 * `metricsToken`: when set, /metrics answers only requests that send it as a bearer token. `draining`: true once
 * the process is shutting down, when /readyz answers 503 so that a load balancer stops sending it requests.
 */
export function systemRoutes(
  db: Db,
  metrics: Metrics,
  metricsToken: string | null,
  draining: () => boolean = () => false,
) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    // The service's front door: its API reference.
    app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/docs'));

    app.get(
      '/healthz',
      {
        schema: {
          summary: 'Liveness: the process serves requests',
          description:
            'Answers 200 {"status":"ok"} as long as the process serves HTTP; it does not touch the database.',
          tags: ['Operations'],
          response: { 200: Status },
        },
      },
      async () => ({ status: 'ok' }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: the database answers',
          description:
            'Answers 200 {"status":"ready"} when the database answers (on SQLite: its file reads and the write lock can be taken), 503 SERVICE_UNAVAILABLE otherwise.',
          tags: ['Operations'],
          response: { 200: Status, ...errorResponses(503) },
        },
      },
      async () => {
        if (draining()) throw errors.serviceUnavailable();
        try {
          await db.ping();
        } catch {
          throw errors.serviceUnavailable();
        }
        return { status: 'ready' };
      },
    );

    app.get(
      '/metrics',
      {
        ...(metricsToken === null ? {} : { onRequest: operatorToken(metricsToken) }),
        schema: {
          summary: 'Prometheus metrics',
          description:
            'Open to whoever reaches the port unless the operator sets METRICS_TOKEN: then only a request with `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise).',
          tags: ['Operations'],
          produces: ['text/plain'],
          response: { 200: Type.String(), ...errorResponses(401) },
        },
      },
      async (request, reply) => {
        reply.type(metrics.registry.contentType);
        return metrics.text();
      },
    );
  };
}
