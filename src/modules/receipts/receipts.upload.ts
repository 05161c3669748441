import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { AppError, errors } from '../../errors.js';
import { isRecord } from '../../lib/guards.js';
import type { Upload } from './receipts.service.js';

/**
 * How an upload's bytes reach the route (HTTP only; the rules are the service's): the raw body with any content
 * type, or the one file of a multipart/form-data body. Read in preValidation, after authentication and before the
 * Idempotency-Key hook, which then sees the upload's fingerprint (SHA-256 and size) as the request's body: the same
 * file is the same request.
 */

/** A raw body, held so that no walk over the body (the text guard's) goes through its bytes one by one. */
class RawBody {
  readonly #bytes: Buffer;
  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }
  get bytes(): Buffer {
    return this.#bytes;
  }
}

const uploads = new WeakMap<FastifyRequest, Upload>();

export function uploadOf(request: FastifyRequest): Upload {
  const upload = uploads.get(request);
  if (!upload) throw errors.internal();
  return upload;
}

const multipartCode = (error: unknown): string | null =>
  isRecord(error) && typeof error.code === 'string' ? error.code : null;

async function read(request: FastifyRequest, maxBytes: number): Promise<Upload> {
  if (!request.isMultipart()) {
    const body: unknown = request.body;
    return { bytes: body instanceof RawBody ? body.bytes : Buffer.alloc(0), filename: null };
  }
  try {
    const part = await request.file({ limits: { fileSize: maxBytes, files: 1 } });
    if (!part) throw errors.receiptMissing();
    const bytes = await part.toBuffer();
    return { bytes, filename: part.filename === '' ? null : part.filename };
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (multipartCode(error) === 'FST_REQ_FILE_TOO_LARGE') throw errors.receiptTooLarge(maxBytes);
    // Whatever else reading the form failed on (a malformed body, a boundary never closed) is the body's fault.
    throw errors.invalidField(
      '',
      `is not a multipart/form-data body svc can read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * In the upload routes' own scope: every content type is read as bytes (the service recognises them), multipart
 * bodies by @fastify/multipart; `fingerprint` turns the upload into the body the Idempotency-Key hook hashes.
 */
export async function registerUploadParsing(
  app: FastifyInstance,
  maxBytes: number,
  fingerprint: (upload: Upload) => object,
): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, new RawBody(Buffer.isBuffer(body) ? body : Buffer.from(body)));
  });
  await app.register(multipart, { limits: { fileSize: maxBytes, files: 1, fields: 10, parts: 11 } });
  app.addHook('preValidation', async (request) => {
    if (request.method !== 'POST') return;
    const upload = await read(request, maxBytes);
    uploads.set(request, upload);
    request.body = fingerprint(upload);
  });
}
