import type { FastifyInstance, RouteOptions } from 'fastify';
import { isRecord } from '../lib/guards.js';

/**
 * Each route reads no more body than its largest valid request: the size of the biggest JSON its body schema
 * accepts (every string at its maxLength, every array at its maxItems, every optional member present), capped by
 * BODY_LIMIT_BYTES. Sign-in gets a few KB, a batch of 1000 values what 1000 of the largest values take; a bigger
 * body is 413 PAYLOAD_TOO_LARGE, refused from its Content-Length before a byte of it is read or parsed. A schema
 * without bounds (a string with no maxLength, an array with no maxItems, free members) falls back to the ceiling;
 * a route without a body schema takes no more than NO_BODY_LIMIT (an empty object, a client's `{}`).
 */

/**
 * Bytes one character of a string may take in a valid body: JSON lets any character be written as a `\uXXXX`
 * escape, and encoders that write ASCII only (Python's json.dumps by default) write a character beyond the BMP,
 * which ajv's maxLength counts once, as two escapes.
 */
const BYTES_PER_CHARACTER = 12;
/** Room for what a pretty-printing encoder writes around a member or an item (newline, indentation, spaces). */
const LAYOUT_PER_MEMBER = 16;
const NUMBER_BYTES = 32;
export const NO_BODY_LIMIT = 1024;

function stringBytes(schema: Record<string, unknown>): number {
  if (Array.isArray(schema.enum)) return Math.max(0, ...schema.enum.map((v) => JSON.stringify(v).length));
  if (schema.const !== undefined) return JSON.stringify(schema.const).length;
  if (schema.format === 'date-time' || schema.format === 'date') return 2 + 64;
  return typeof schema.maxLength === 'number' ? 2 + BYTES_PER_CHARACTER * schema.maxLength : Infinity;
}

/** The size in bytes of the largest JSON text `schema` accepts; Infinity when it sets no bound. */
export function largestBody(schema: unknown): number {
  if (!isRecord(schema)) return Infinity;
  for (const union of ['anyOf', 'oneOf'] as const) {
    const branches = schema[union];
    if (Array.isArray(branches)) return Math.max(0, ...branches.map(largestBody));
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const).length;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return Math.max(0, ...types.map((type) => largestOfType(schema, type)));
}

function largestOfType(schema: Record<string, unknown>, type: unknown): number {
  switch (type) {
    case 'string':
      return stringBytes(schema);
    case 'integer':
    case 'number':
      return NUMBER_BYTES;
    case 'boolean':
      return 5;
    case 'null':
      return 4;
    case 'array': {
      if (typeof schema.maxItems !== 'number') return Infinity;
      return 2 + schema.maxItems * (largestBody(schema.items) + 1 + LAYOUT_PER_MEMBER);
    }
    case 'object': {
      if (schema.additionalProperties !== false || !isRecord(schema.properties)) return Infinity;
      let total = 2;
      for (const [name, member] of Object.entries(schema.properties)) {
        total += JSON.stringify(name).length * 2 + 2 + largestBody(member) + LAYOUT_PER_MEMBER;
      }
      return total;
    }
    default:
      return Infinity;
  }
}

/** The body limit of a route: its own when it sets one, else its schema's largest body within the ceiling. */
export function routeBodyLimit(route: Pick<RouteOptions, 'bodyLimit' | 'schema'>, ceiling: number): number {
  if (typeof route.bodyLimit === 'number') return Math.min(route.bodyLimit, ceiling);
  const body = isRecord(route.schema) ? route.schema.body : undefined;
  if (body === undefined) return NO_BODY_LIMIT;
  const largest = largestBody(body);
  // Rounded up to a KiB: the limit is a size people read in the 413's details.
  return Number.isFinite(largest) ? Math.min(ceiling, Math.ceil(largest / 1024) * 1024) : ceiling;
}

export function registerBodyLimits(app: FastifyInstance, ceiling: number): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // GET, HEAD and OPTIONS take no body (Fastify parses none).
    if (!methods.some((m) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(m))) return;
    route.bodyLimit = routeBodyLimit(route, ceiling);
  });
}
