import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../db/database.js';
import { authOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { AuditPage, AuditQuery } from './audit.schemas.js';
import { auditService } from './audit.service.js';

/** The account's audit log: read-only (there is no operation that writes, changes or deletes an entry). */
export function auditRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/v1/audit-events',
      {
        config: { scopes: ['audit.read'] },
        schema: {
          operationId: 'listAuditEvents',
          summary: "The account's audit log of administrative actions",
          description:
            "Every administrative action on the caller's account, newest first: users and their sign-in settings, API clients and their secrets, webhook endpoints, integrations, connected apps, account settings, coding rules (saved, changed, deleted, applied). Who did it (a console user, an API client, or the operator through `svc`), when, from which address, under which request id, and what it did (never a secret). Written in the transaction of the action itself; nothing changes or deletes an entry. Filters combine: any of `action[]`, one actor, one target.",
          tags: ['Internal: audit log'],
          querystring: AuditQuery,
          response: { 200: AuditPage, ...errorResponses(400) },
        },
      },
      async (request) => {
        const query = request.query;
        return auditService.list(db, authOf(request), {
          action: query['action[]'],
          actor_id: query.actor_id,
          target_type: query.target_type,
          target_id: query.target_id,
          'occurred_at[gte]': query['occurred_at[gte]'],
          'occurred_at[lt]': query['occurred_at[lt]'],
          cursor: query.cursor,
          limit: query.limit ?? 100,
        });
      },
    );
  };
}
