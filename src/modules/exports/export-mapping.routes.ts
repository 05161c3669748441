import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { auditOf, authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { ExportMappingBody, ExportMappingResponse } from './export-mapping.schemas.js';
import { exportMapping } from './export-mapping.service.js';

const tags = ['Internal: exports'];
/** Whoever may export reads the mapping its files are booked with; admins set it. */
const READERS = ['accounting.record.read', 'accounting.record.write', 'accounting.record.admin'] as const;

/** The account's export mapping (docs/exports.md, "The stored mapping"). */
export function exportMappingRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/v1/accounting/export-mapping',
      {
        config: { scopes: READERS },
        schema: {
          operationId: 'getExportMapping',
          summary: "The account's export mapping (GL account field, balancing accounts, dimension columns)",
          description:
            "What every file export books with where its request does not say otherwise: the GL account field, the account of each balancing_account_type (the stored one or the default), and the fields that fill the ERPs' dimension columns. The defaults until set.",
          tags,
          response: { 200: ExportMappingResponse },
        },
      },
      async (request) => exportMapping.get(db.direct, authOf(request)),
    );

    app.put(
      '/internal/v1/accounting/export-mapping',
      {
        config: { scopes: ['accounting.record.admin'] },
        schema: {
          operationId: 'setExportMapping',
          summary: "Set the account's export mapping",
          description:
            'Replaces the mapping: what is not given takes its default. 404 NOT_FOUND names each member naming a field the account does not have (details.errors, by pointer; details.not_found_field_ids); 400 INVALID_REQUEST each other wrong member (an account path that is not one, the GL account field given as a dimension); nothing is stored then. Kept in the audit log (account.settings_changed).',
          tags,
          body: ExportMappingBody,
          response: { 200: ExportMappingResponse, ...errorResponses(400, 404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => exportMapping.set(ex, auditOf(request), request.body)),
    );
  };
}
