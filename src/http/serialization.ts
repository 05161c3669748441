import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

const defaultFactory = SerializerSelector();

/**
 * Fastify's compilersFactory.buildSerializer with fast-json-stringify, compiled on first use: each route
 * declares a response per status (the shared error responses included), and building all of them at start
 * made the start-up slow. A serializer that is never used (most error statuses) is never built.
 */
export const buildLazySerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = defaultFactory(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data) => (serialize ??= compile(route))(data);
  };
};
