import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { accountingService } from './accounting.service.js';
import {
  AccountingRecord,
  ExportResultsBody,
  ExportResultsResponse,
  RecordIdParams,
  RecordPage,
  RecordQuery,
  SingleEntryQuery,
} from './accounting.schemas.js';
import type { SuggestionsPort } from './allowed-moves.js';
import { allowedMovesRoutes } from './allowed-moves.routes.js';
import { internalAccountingRoutes } from './internal.routes.js';
import { overviewRoutes } from './overview.routes.js';
import { receiptPolicyRoutes } from './receipt-policy.routes.js';
import { reviewRoutes } from './review.routes.js';
import { savedViewsRoutes } from './saved-views.routes.js';
import { bulkCodingRoutes } from './bulk-coding.routes.js';
import { sendPrewritten } from '../../http/serialization.js';

const tags = ['Accounting Records'];

/** `receiptsPerRecord`: RECEIPTS_PER_RECORD, which ingestion naming uploaded receipts honours. */
export function accountingRoutes(
  db: Db,
  receiptsPerRecord: number,
  suggestions: SuggestionsPort,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/v3/accounting/records/:record_id',
      {
        config: { scopes: ['accounting.record.read', 'accounting.record.write'] },
        schema: {
          operationId: 'getAccountingRecord',
          summary: 'Get accounting record by ID',
          description:
            "One record of the caller's account with its lines (double entry; single_entry=true leaves out the balancing lines), user, vendor, receipts, version and last export result; another account's record or an unknown id → 404.",
          tags,
          params: RecordIdParams,
          querystring: SingleEntryQuery,
          response: { 200: AccountingRecord, ...errorResponses(404) },
        },
      },
      async (request) =>
        accountingService.get(
          db.direct,
          authOf(request),
          request.params.record_id,
          request.query.single_entry ?? false,
        ),
    );

    app.get(
      '/v3/accounting/records',
      {
        config: { scopes: ['accounting.record.read', 'accounting.record.write'] },
        schema: {
          operationId: 'queryAccountingRecords',
          summary: 'Query accounting records',
          description:
            'Records matching every given filter, ordered by (updated_at, id). Polling: pass updated_at[gt] = the greatest updated_at seen and follow next_cursor; no change is ever missed. review_status alone matches card and reimbursement records; with source_type=BILL it is rejected.',
          tags,
          querystring: RecordQuery,
          response: { 200: RecordPage },
        },
      },
      async (request, reply) => {
        // Pages of up to 500 records are the polling hot path: written as text (AccountingRecordShape.toJson), not
        // through the schema serializer; the schema above still documents the answer.
        const page = await accountingService.query(db, authOf(request), request.query);
        return sendPrewritten(reply, page);
      },
    );

    app.post(
      '/v3/accounting/records/export-results',
      {
        config: { scopes: ['accounting.record.write'] },
        schema: {
          operationId: 'reportAccountingExportResults',
          summary: 'Report accounting export results',
          description:
            'All or nothing, 1 to 1000 results. Success moves a READY_FOR_EXPORT record to EXPORTED, failure back to REVIEW; either is kept as last_export_result.',
          tags,
          body: ExportResultsBody,
          response: { 200: ExportResultsResponse, ...errorResponses(404, 422) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (trx) =>
          accountingService.reportExportResults(trx, authOf(request), request.body),
        ),
    );

    await app.register(internalAccountingRoutes(db, receiptsPerRecord));
    await app.register(reviewRoutes(db));
    await app.register(receiptPolicyRoutes(db));
    await app.register(bulkCodingRoutes(db));
    await app.register(allowedMovesRoutes(db, suggestions));
    await app.register(overviewRoutes(db));
    await app.register(savedViewsRoutes(db));
  };
}
