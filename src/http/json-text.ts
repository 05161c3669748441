import type { FastifyReply } from 'fastify';

/**
 * Sends JSON the service has already written as text (pages written from their shapes, src/lib/shape.ts),
 * past the route's serializer: the route's response schema still documents the answer.
 */
export function sendJsonText(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(json);
}
