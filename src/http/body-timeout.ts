import type { FastifyInstance } from 'fastify';

const TIMED_OUT = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/**
 * Cuts a client that has not sent its whole request within `ms` of its start. Node's own requestTimeout
 * does not cover a body that trickles in after the headers (a slow-body attack holds a socket and a
 * request for as long as the client likes), so each request gets a timer until its body is complete.
 */
export function registerBodyTimeout(app: FastifyInstance, ms: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.complete) return done();
    const timer = setTimeout(() => {
      if (request.raw.complete || request.raw.socket.destroyed) return;
      request.log.warn({ timeout_ms: ms }, 'request body not received in time: connection cut');
      request.raw.socket.end(TIMED_OUT);
      request.raw.socket.destroySoon();
    }, ms);
    timer.unref();
    reply.raw.once('close', () => clearTimeout(timer));
    request.raw.once('end', () => clearTimeout(timer));
    done();
  });
}
