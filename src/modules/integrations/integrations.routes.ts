import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { auditOf, authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schemas.js';
import { integrationsService } from './integrations.service.js';
import {
  CreateIntegrationBody,
  Integration,
  IntegrationIdParams,
  IntegrationListQuery,
  IntegrationPage,
} from './integrations.schemas.js';

const tags = ['Accounting Integrations'];

/** The reference's three integration operations, and the account's list (ours). */
export function integrationsRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/v3/accounting/integration',
      {
        config: { scopes: ['accounting.integration.write'] },
        schema: {
          operationId: 'createIntegration',
          summary: 'Create accounting integration',
          description:
            'Connects the account to an account at an ERP vendor. No active integration: creates one. An active one with the same vendor and vendor_account_id: answers it (nothing changes). An active one with another vendor: 409 ACTIVE_INTEGRATION_EXISTS; with the same vendor and another vendor_account_id: 409 VENDOR_ACCOUNT_ID_MISMATCH. So an account has at most one active integration, whatever requests race. A vendor the operator has not created, or has disabled: 400.',
          tags,
          body: CreateIntegrationBody,
          response: { 200: Integration, ...errorResponses(400, 409) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) => integrationsService.create(ex, auditOf(request), request.body)),
    );

    app.post(
      '/v3/accounting/integration/:integration_id/disconnect',
      {
        config: { scopes: ['accounting.integration.write'] },
        schema: {
          operationId: 'disconnectIntegration',
          summary: 'Disconnect accounting integration',
          description:
            'ACTIVE → DISABLED. An unknown integration (or one of another account): 404; one not active: 409 INTEGRATION_NOT_ACTIVE with its current_status.',
          tags,
          params: IntegrationIdParams,
          response: { 200: Integration, ...errorResponses(404, 409) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          integrationsService.disconnect(ex, auditOf(request), request.params.integration_id),
        ),
    );

    app.post(
      '/v3/accounting/integration/:integration_id/reactivate',
      {
        config: { scopes: ['accounting.integration.write'] },
        schema: {
          operationId: 'reactivateIntegration',
          summary: 'Reactivate accounting integration',
          description:
            'DISABLED → ACTIVE. An unknown integration: 404; the account has an active integration (this one included): 409 ACTIVE_INTEGRATION_EXISTS naming it; its vendor disabled by the operator since: 400.',
          tags,
          params: IntegrationIdParams,
          response: { 200: Integration, ...errorResponses(400, 404, 409) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, (ex) =>
          integrationsService.reactivate(ex, auditOf(request), request.params.integration_id),
        ),
    );

    app.get(
      '/internal/v1/integrations',
      {
        config: { scopes: ['accounting.integration.read', 'accounting.integration.write'] },
        schema: {
          operationId: 'listIntegrations',
          summary: "The account's integrations, current and past (svc's own, not the reference's)",
          description:
            "Not an operation of the reference API: svc's own, for the console and for partners. Every integration of the caller's account, ACTIVE and DISABLED, in creation order, with when its status last changed.",
          tags: ['Internal: integrations'],
          querystring: IntegrationListQuery,
          response: { 200: IntegrationPage },
        },
      },
      async (request) =>
        integrationsService.list(db.direct, authOf(request), {
          cursor: request.query.cursor,
          limit: request.query.limit ?? 100,
        }),
    );
  };
}
