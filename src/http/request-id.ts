import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';

const VALID = /^[A-Za-z0-9._:\-]{1,128}$/;

/** Echoes a well-formed incoming X-Request-Id; otherwise makes one. */
export function genRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && VALID.test(incoming)) return incoming;
  return `req_${randomBytes(12).toString('base64url')}`;
}
