import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { BulkCodingBody, BulkCodingResponse } from './bulk-coding.schemas.js';
import { bulkCodingService } from './bulk-coding.service.js';

/** Coding many records at once (the console's coding grid), each record saved or refused on its own. */
export function bulkCodingRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/internal/v1/accounting/records/coding',
      {
        config: { scopes: ['accounting.record.review', 'accounting.record.admin'] },
        schema: {
          operationId: 'codeAccountingRecords',
          summary: 'Code the lines of up to 200 records, each saved on its own',
          description:
            "Each item codes one record exactly as `POST …/records/{record_id}/coding` does (each given line's whole coding, at the record's current `version`, in PREPARE or REVIEW; a new version, updated_at and a CODED event in the record's history). Unlike the other batches, the items are not all or nothing: each record is saved on its own, so a refused one (VERSION_CONFLICT, RECORD_NOT_EDITABLE, INVALID_CODING, INVALID_REQUEST for its lines, NOT_FOUND for a record the account does not have) is answered on its item with the error its own coding would answer, and leaves the others saved. Answers 200 with one item per record, in request order: `SAVED` with the record as coded, or `REFUSED` with the error. A record named twice → 400, nothing saved.",
          tags: ['Internal: review workflow'],
          body: BulkCodingBody,
          response: { 200: BulkCodingResponse, ...errorResponses() },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => bulkCodingService.codeMany(ex, authOf(request), request.body)),
    );
  };
}
