import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { OverviewResponse } from './overview.schemas.js';
import { overviewService } from './overview.service.js';

const READ = [
  'accounting.record.read',
  'accounting.record.write',
  'accounting.record.review',
  'accounting.record.admin',
] as const;

export function overviewRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/v1/accounting/overview',
      {
        config: { scopes: READ },
        schema: {
          operationId: 'getAccountingOverview',
          summary: "The account's records at a glance",
          description:
            'Counts by review state and source type, the records waiting longest in PREPARE or REVIEW, the records whose last export failed, and export reports per day over the last 30 days.',
          tags: ['Internal: review workflow'],
          response: { 200: OverviewResponse, ...errorResponses(404) },
        },
      },
      async (request) => overviewService.overview(db, authOf(request)),
    );
  };
}
