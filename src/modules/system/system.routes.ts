import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { errorResponses } from '../../http/schemas.js';
import type { Metrics } from './metrics.js';

const Status = Type.Object({ status: Type.String() });

export function systemRoutes(db: Db, metrics: Metrics) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get(
      '/healthz',
      { schema: { summary: 'Liveness: the process serves requests', tags: ['Operations'], response: { 200: Status } } },
      async () => ({ status: 'ok' }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: the database answers',
          tags: ['Operations'],
          response: { 200: Status, ...errorResponses(503) },
        },
      },
      async () => {
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
        schema: {
          summary: 'Prometheus metrics',
          tags: ['Operations'],
          produces: ['text/plain'],
          response: { 200: Type.String() },
        },
      },
      async (_request, reply) => {
        reply.type(metrics.registry.contentType);
        return metrics.registry.metrics();
      },
    );
  };
}
