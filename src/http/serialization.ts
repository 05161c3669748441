import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { FastifyReply } from 'fastify';
import { PrewrittenJson } from '../lib/prewritten.js';

const defaultFactory = SerializerSelector();

/**
 * Fastify's compilersFactory.buildSerializer with fast-json-stringify, compiled on first use, and the one place a
 * pre-written answer (lib/prewritten.ts) is sent instead: each route
 * declares a response per status (the shared error responses included), and building all of them at start
 * made the start-up slow. A serializer that is never used (most error statuses) is never built.
 *
 * Each route's serializer gets its own factory: the default one drops a shared schema from the options it shares
 * with every later route once one route answers that schema itself (a route answering `Field` left the list of
 * fields unable to resolve its `$ref: Field`).
 */
export const buildLazySerializer: SerializerFactory = (externalSchemas, options) => (route) => {
  let serialize: ((data: unknown) => string) | undefined;
  return (data) => {
    // The one pre-written path (lib/prewritten.ts): its text is the answer, already written as the schema's would be.
    // Fastify sends a Buffer as it sends a string.
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- Fastify sends what a serializer answers, a Buffer as a string
    if (data instanceof PrewrittenJson) return data.json as string;
    return (serialize ??= defaultFactory(externalSchemas, options)(route))(data);
  };
};

/**
 * Sends a pre-written answer (lib/prewritten.ts) through the route's serializer above, which writes its text: the one
 * way a route answers with one. The route's response schema documents it; test/unit/prewritten.test.ts holds the
 * bytes equal to the schema serializer's.
 */
export function sendPrewritten(reply: FastifyReply, page: PrewrittenJson): FastifyReply {
  return reply.send(page);
}
