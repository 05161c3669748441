import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { AppError, DRAIN_LIMIT, errors } from '../errors.js';
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
/** At least this many separators beyond the largest valid body are read and validated (2 for each unknown member). */
const SEPARATOR_ROOM = 1000;

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

/**
 * The most separators (`:` of a member, `,` between members or items) outside strings that JSON `schema` accepts can
 * hold; Infinity when it sets no bound. A body with more cannot be valid, whatever its bytes: it is refused before it
 * is parsed (a 5 MB body of half a million members costs a JSON.parse of a dictionary that size, then its walks).
 */
export function largestSeparators(schema: unknown): number {
  if (!isRecord(schema)) return Infinity;
  for (const union of ['anyOf', 'oneOf'] as const) {
    const branches = schema[union];
    if (Array.isArray(branches)) return Math.max(0, ...branches.map(largestSeparators));
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return Math.max(
    0,
    ...types.map((type) => {
      if (type === 'array') {
        if (typeof schema.maxItems !== 'number') return Infinity;
        return Math.max(0, schema.maxItems - 1) + schema.maxItems * largestSeparators(schema.items);
      }
      if (type === 'object') {
        if (schema.additionalProperties !== false || !isRecord(schema.properties)) return Infinity;
        const members = Object.values(schema.properties);
        return 2 * members.length - 1 + members.reduce((sum: number, m) => sum + largestSeparators(m), 0);
      }
      return ['string', 'integer', 'number', 'boolean', 'null'].includes(String(type)) ? 0 : Infinity;
    }),
  );
}

/**
 * Counts the separators outside strings of a JSON body as its bytes arrive (a JSON text's structure is ASCII; the
 * bytes of a multi-byte UTF-8 character are all above 0x7f), and fails the stream once there are more than `limit`:
 * the rest of the body is never read.
 */
export class SeparatorCount extends Transform {
  private count = 0;
  private inString = false;
  private escaped = false;
  private received = 0;

  /** `declared`: the body's Content-Length, if it has one. */
  constructor(
    private readonly limit: number,
    private readonly declared: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let { count, inString, escaped } = this;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 0x5c) escaped = true;
        else if (c === 0x22) inString = false;
      } else if (c === 0x22) inString = true;
      else if (c === 0x3a || c === 0x2c) count++;
    }
    Object.assign(this, { count, inString, escaped });
    this.received += chunk.length;
    if (count > this.limit) {
      const rest = this.declared - this.received;
      callback(
        errors.bodyTooComplex(
          `holds more members and items than any valid request of this operation (at most ${this.limit} separators)`,
          Number.isFinite(rest) && rest <= DRAIN_LIMIT,
        ),
      );
      return;
    }
    callback(null, chunk);
  }
}

/**
 * preParsing: a JSON body is read through a SeparatorCount of its route's `maxJsonSeparators` (registerBodyLimits):
 * a body with more members and items than any valid one is refused, 400, after no more of it than that takes (a
 * 5 MB body of half a million members after its first few KB); the rest is not read (errors.bodyTooComplex).
 */
export function registerJsonSeparatorLimit(app: FastifyInstance): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const limit = request.routeOptions.config.maxJsonSeparators;
    const type = request.headers['content-type'];
    const declared = Number(request.headers['content-length']);
    if (
      typeof limit !== 'number' ||
      typeof type !== 'string' ||
      !/^application\/json\b/i.test(type) ||
      // Over the route's byte limit: refused from its head (413) by the parser, and nothing is to be read here.
      declared > (request.routeOptions.bodyLimit ?? Infinity)
    ) {
      return done(null, payload);
    }
    const counted = payload.pipe(new SeparatorCount(limit, declared));
    payload.on('error', (error) => counted.destroy(error));
    // Refused with little left to come: that rest is read and dropped, and the connection kept (errors.bodyTooComplex).
    counted.on('error', (error) => {
      payload.unpipe(counted);
      if (error instanceof AppError && error.headers.connection === 'keep-alive') payload.resume();
    });
    done(null, counted);
  });
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
    const upload = route.config?.uploadBytes;
    if (typeof upload === 'number') {
      route.bodyLimit = upload;
      return;
    }
    route.bodyLimit = routeBodyLimit(route, ceiling);
    const body = isRecord(route.schema) ? route.schema.body : undefined;
    const separators = body === undefined ? 0 : largestSeparators(body);
    // Room past the largest valid body for the mistakes validation names one by one (a few unknown members, an
    // array a little over its maxItems): only a body far past any valid one is refused unparsed.
    const room = Math.max(SEPARATOR_ROOM, Math.ceil(separators / 10));
    if (Number.isFinite(separators)) route.config = { ...route.config, maxJsonSeparators: separators + room };
  });
}
