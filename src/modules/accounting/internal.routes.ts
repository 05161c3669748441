import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { accountingService } from './accounting.service.js';
import { AccountingRecord, IngestBody, RecordIdParams, RecordItems, ReviewStatusBody } from './accounting.schemas.js';
import { ingestService } from './ingest.service.js';

const tags = ['Internal: accounting records'];

/** For the card, reimbursement and bill systems: records come to exist and move through review here. */
export function internalAccountingRoutes(db: Db, receiptsPerRecord: number): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/internal/v1/accounting/records',
      {
        config: { scopes: ['accounting.record.admin'] },
        schema: {
          operationId: 'createAccountingRecords',
          summary: 'Create accounting records from source activity',
          description:
            "Up to 1000 items, all or none. `lines` split the economic side across coded lines and must sum to the amount (default: one uncoded line); the service writes the balancing side. Items created READY_FOR_EXPORT must meet the account's required coding (422 CODING_REQUIRED) and receipt policy (422 RECEIPT_REQUIRED, details.records naming each item by its path).",
          tags,
          body: IngestBody,
          response: { 200: RecordItems, ...errorResponses(404, 422) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          ingestService.create(trx, authOf(request), request.body.items, receiptsPerRecord),
        ),
    );

    app.post(
      '/internal/v1/accounting/records/:record_id/review-status',
      {
        config: { scopes: ['accounting.record.admin'] },
        schema: {
          operationId: 'moveAccountingRecordReviewStatus',
          summary: 'Move a record through review',
          description:
            "One step forward (PREPARE → REVIEW → READY_FOR_EXPORT) or back (READY_FOR_EXPORT → REVIEW → PREPARE, EXPORTED → REVIEW). EXPORTED is reached only through export results. A move to READY_FOR_EXPORT checks the account's required coding (422 CODING_REQUIRED) and receipt policy (422 RECEIPT_REQUIRED: details {accounting_record_id, record_type, currency, amount_minor, above_minor}, amounts in minor units).",
          tags,
          params: RecordIdParams,
          body: ReviewStatusBody,
          response: { 200: AccountingRecord, ...errorResponses(404, 409, 422) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          accountingService.moveReviewStatus(trx, authOf(request), request.params.record_id, request.body),
        ),
    );
  };
}
