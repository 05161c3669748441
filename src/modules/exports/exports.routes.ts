import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { exportMappingRoutes } from './export-mapping.routes.js';
import { ExportBody, ExportFile } from './exports.schemas.js';
import { exportsService } from './exports.service.js';

/** File exports of READY_FOR_EXPORT records to ledgers (docs/exports.md): a download, nothing changed. */
export function exportsRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(exportMappingRoutes(db));
    app.post(
      '/internal/v1/accounting/exports',
      {
        // A read: nothing to replay, so an Idempotency-Key is refused rather than stored.
        config: { scopes: ['accounting.record.read', 'accounting.record.write'], idempotency: 'refused' },
        schema: {
          operationId: 'exportAccountingRecordsFile',
          summary: 'Export records to an hledger journal, a Beancount file or CSV',
          description:
            'The selected READY_FOR_EXPORT records (by ids, by ERP posting date, or all) as one file. Every entry carries its record id; report each outcome with POST /v3/accounting/records/export-results. A record not ready, not found, with a line without a GL account or an amount its currency cannot hold refuses the whole file: 422 EXPORT_REFUSED names each in details.records. An id the account does not have: 404 NOT_FOUND (details.not_found_accounting_record_ids). A file its import cannot take whole (Xero: 300 lines): 422 EXPORT_TOO_LARGE.',
          tags: ['Internal: exports'],
          produces: ['text/plain', 'text/csv'],
          body: ExportBody,
          response: { 200: ExportFile, ...errorResponses(400, 404, 422) },
        },
      },
      async (request, reply) => {
        const today = microsToIso(nowMicros()).slice(0, 10);
        const file = await db.read((ex) => exportsService.file(ex, authOf(request), request.body, today));
        return reply
          .type(file.mediaType)
          .header('content-disposition', `attachment; filename="${file.fileName}"`)
          .header('x-svc-exported-count', String(file.recordIds.length))
          .send(file.body);
      },
    );
  };
}
