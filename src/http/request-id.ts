import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';

// Unique, not secret: a random prefix per process and a counter (no entropy drawn per request).
const PREFIX = `req_${randomBytes(6).toString('base64url')}`;
let counter = 0;

const VALID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a well-formed incoming X-Request-Id; otherwise makes one. */
export function genRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && VALID.test(incoming)) return incoming;
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${PREFIX}${counter.toString(36).padStart(8, '0')}`;
}
