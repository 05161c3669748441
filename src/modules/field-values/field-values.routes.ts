import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/dialect.js';

export function fieldValuesRoutes(_db: Db): FastifyPluginAsyncTypebox {
  return async () => {};
}
