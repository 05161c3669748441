import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { groupedWrites, ungrouped } from '../../speed/grouped-writes.js';
import type { ReceiptsService } from './receipts.service.js';
import {
  LinkQuery,
  Receipt,
  ReceiptParams,
  RecordParams,
  RecordReceiptParams,
  RemoveAnswer,
  UploadAnswer,
} from './receipts.schemas.js';
import type { ReceiptsTable } from './receipts.tables.js';
import { registerUploadParsing, uploadOf } from './receipts.upload.js';
import { parseRange } from './receipts.range.js';

const tags = ['Internal: receipts'];
/** Whoever may write a record (an integration's admin client, a console user who codes) may attach receipts. */
const WRITE = ['accounting.record.admin', 'accounting.record.review'] as const;
const READ = ['accounting.record.read', 'accounting.record.write', ...WRITE] as const;
/** Served receipts are never run: no script, no plugin, no frame of anything; images shown, PDFs read. */
const SANDBOX_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox";
/** A body of bytes (a stream or a buffer, sent as it is: no serializer touches it). */
const Bytes = (description: string) =>
  Type.Unsafe<Readable | Buffer>({ type: 'string', format: 'binary', description });
const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/heic': 'heic',
  'application/pdf': 'pdf',
};

function served(reply: FastifyReply, receipt: ReceiptsTable, contentType: string, extension: string, name = 'receipt') {
  return reply
    .type(contentType)
    .header('content-disposition', `inline; filename="${name}-${receipt.id}.${extension}"`)
    .header('content-security-policy', SANDBOX_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('cross-origin-resource-policy', 'same-site')
    .header('cache-control', 'private, max-age=60');
}

/** Receipts: uploaded to a record, removed from it, and served through signed links (docs/receipts.md). */
export function receiptsRoutes(db: Db, service: ReceiptsService, maxBytes: number): FastifyPluginAsyncTypebox {
  return async (app) => {
    // An upload's bytes are made durable on their own first (the store's write); what is left is a short
    // transaction (the row, the attach, the Idempotency-Key's answer) whose commit uploads arriving together share.
    // SQLite only: its one writer's commit is what uploads share (A/B: +15% to +49%). On PostgreSQL grouping measured
    // no gain, and would hold one account's record clock until other accounts' works commit (two groups taking
    // accounts in opposite orders deadlock): each attach there is a transaction of its own.
    const attaches = db.dialect === 'sqlite' ? groupedWrites(db, { maxBatch: 32, concurrency: 1 }) : ungrouped(db);
    // Uploads in their own scope: its body parsing (bytes, multipart) is theirs alone.
    await app.register(async (scope) => {
      const uploads = scope.withTypeProvider<TypeBoxTypeProvider>();
      await registerUploadParsing(scope, maxBytes, (upload) => service.fingerprint(upload));
      uploads.post(
        '/internal/v1/accounting/records/:record_id/receipts',
        {
          // Room past the file for a multipart body's boundaries and headers.
          config: { scopes: WRITE, uploadBytes: maxBytes + 64 * 1024 },
          schema: {
            operationId: 'uploadRecordReceipt',
            summary: 'Attach a receipt to a record',
            description: `The receipt as the raw body (any Content-Type: the type is recognised from the bytes, never from the name or declared type) or as the one file of a multipart/form-data body. JPEG, PNG, WebP, PDF (HEIC only where the server can decode it): 415 UNSUPPORTED_RECEIPT_TYPE otherwise; at most RECEIPT_MAX_BYTES (413 PAYLOAD_TOO_LARGE); at most RECEIPTS_PER_RECORD receipts a record (409 RECEIPT_LIMIT_REACHED). The same bytes uploaded again are the same receipt (stored once per account); attached to this record already, the record is answered unchanged; attached to another record, 409 RECEIPT_ATTACHED_ELSEWHERE naming it (details.attached_to_record_id): a receipt belongs to one record. Idempotency-Key honoured (the same file is the same request). 404 for a record the account does not have.`,
            tags,
            params: RecordParams,
            response: { 200: UploadAnswer, ...errorResponses(404, 409, 413, 415) },
          },
        },
        async (request, reply) => {
          const caller = authOf(request);
          const upload = uploadOf(request);
          const type = await attaches.before(() => service.stage(db, caller, request.params.record_id, upload));
          return writeTransaction(attaches, request, reply, (ex) =>
            service.attachUpload(ex, caller, request.params.record_id, upload, type),
          );
        },
      );
      uploads.post(
        '/internal/v1/receipts',
        {
          config: { scopes: WRITE, uploadBytes: maxBytes + 64 * 1024 },
          schema: {
            operationId: 'uploadReceipt',
            summary: 'Upload a receipt tied to no record yet',
            description: `As uploading to a record (the same bodies, types, size limit and refusals; Idempotency-Key honoured), the receipt attached to nothing: ingestion (POST /internal/v1/accounting/records) names it in an item's receipt_ids, which attaches it to that record. The same bytes uploaded again are the same receipt (stored once per account). An unattached receipt stays stored; it is never swept.`,
            tags,
            response: { 200: Receipt, ...errorResponses(413, 415) },
          },
        },
        async (request, reply) => {
          const caller = authOf(request);
          const upload = uploadOf(request);
          const type = await attaches.before(() => service.stageUnattached(db, caller, upload));
          return writeTransaction(attaches, request, reply, (ex) => service.keepUnattached(ex, caller, upload, type));
        },
      );
    });

    app.delete(
      '/internal/v1/accounting/records/:record_id/receipts/:receipt_id',
      {
        config: { scopes: WRITE },
        schema: {
          operationId: 'removeRecordReceipt',
          summary: 'Remove a receipt from a record',
          description:
            "Removes the receipt from the record's receipts (a new version, kept in the record's history as RECEIPT_REMOVED); the receipt itself stays stored. 404 for a record the account does not have, or a receipt it does not list.",
          tags,
          params: RecordReceiptParams,
          response: { 200: RemoveAnswer, ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          service.detach(ex, authOf(request), request.params.record_id, request.params.receipt_id),
        ),
    );

    app.get(
      '/internal/v1/receipts/:receipt_id',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'getReceipt',
          summary: 'A receipt, with fresh signed links',
          description: 'A receipt the account stores: its type, size, SHA-256 and signed links. 404 otherwise.',
          tags,
          params: ReceiptParams,
          response: { 200: Receipt, ...errorResponses(404) },
        },
      },
      async (request) => db.read((ex) => service.get(ex, authOf(request), request.params.receipt_id)),
    );

    app.get(
      '/internal/v1/receipts/:receipt_id/content',
      {
        schema: {
          operationId: 'downloadReceipt',
          summary: 'A receipt’s bytes, through its signed link',
          description:
            "No token: the link's signature is the credential (403 INVALID_RECEIPT_LINK for a link svc did not sign for this account and receipt, 403 RECEIPT_LINK_EXPIRED past its time). The stored type, Content-Disposition, nosniff and a Content-Security-Policy that runs nothing; single byte ranges (206, or 416 past the end).",
          tags,
          params: ReceiptParams,
          querystring: LinkQuery,
          produces: ['application/octet-stream'],
          response: {
            200: Bytes('The bytes'),
            206: Bytes('The bytes of the range asked for'),
            416: Type.Null({ description: 'The range starts past the end (Content-Range: bytes */size)' }),
            ...errorResponses(400, 403, 404),
          },
        },
      },
      async (request, reply) => {
        const link = { ...request.query, receiptId: request.params.receipt_id };
        const receipt = await db.read((ex) => service.find(ex, link));
        const size = Number(receipt.size_bytes);
        const range = parseRange(request.headers.range, size);
        reply.header('accept-ranges', 'bytes').header('etag', `"${receipt.sha256}"`);
        if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${size}`).send(null);
        // Outside a transaction: the bytes are read as the client takes them (PostgreSQL: chunk by chunk).
        const body = await service.bytes(db.direct, receipt, range ?? undefined);
        served(reply, receipt, receipt.content_type, EXTENSIONS[receipt.content_type] ?? 'bin');
        if (range) {
          reply
            .code(206)
            .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
            .header('content-length', String(range.end - range.start + 1));
        } else {
          reply.header('content-length', String(size));
        }
        return reply.send(body);
      },
    );

    app.get(
      '/internal/v1/receipts/:receipt_id/thumbnail',
      {
        schema: {
          operationId: 'receiptThumbnail',
          summary: 'A JPEG thumbnail of an image receipt, through its signed link',
          description:
            'The same signed link as the bytes (its path ending in /thumbnail): a JPEG at most 320 px on a side; 404 for a PDF, which has none.',
          tags,
          params: ReceiptParams,
          querystring: LinkQuery,
          produces: ['image/jpeg'],
          response: { 200: Bytes('A JPEG'), ...errorResponses(400, 403, 404) },
        },
      },
      async (request, reply) => {
        const link = { ...request.query, receiptId: request.params.receipt_id };
        const receipt = await db.read((ex) => service.find(ex, link));
        const jpeg = await db.read((ex) => service.thumbnail(ex, receipt));
        return served(reply, receipt, 'image/jpeg', 'jpg', 'thumbnail').send(jpeg);
      },
    );
  };
}
