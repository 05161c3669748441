import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

const defaultFactory = SerializerSelector();

/**
 * Fastify's compilersFactory.buildSerializer with fast-json-stringify, compiled on first use: each route
 * declares a response per status (the shared error responses included), and building all of them at start
 * made the start-up slow. A serializer that is never used (most error statuses) is never built.
 *
 * Each route's serializer gets its own factory: the default one drops a shared schema from the options it shares
 * with every later route once one route answers that schema itself (a route answering `Field` left the list of
 * fields unable to resolve its `$ref: Field`).
 */
export const buildLazySerializer: SerializerFactory = (externalSchemas, options) => (route) => {
  let serialize: ((data: unknown) => string) | undefined;
  return (data) => (serialize ??= defaultFactory(externalSchemas, options)(route))(data);
};
