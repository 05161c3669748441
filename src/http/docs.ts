import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { SCOPES } from '../modules/auth/scopes.js';

/**
 * /openapi.json is generated from the route schemas (OpenAPI 3.1); /docs serves Swagger UI from the
 * installed package, so it works offline.
 */
export async function registerDocs(
  app: FastifyInstance,
  extra: { webhooks?: Record<string, unknown> } = {},
): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc API',
        version: '1.0.0',
        description:
          'Custom fields and their values, and accounting records with their review lifecycle and export results. ' +
          'Authenticate with OAuth 2.0 client credentials at POST /oauth2/token and send `Authorization: Bearer <token>`. ' +
          'Any one of the scopes listed for an operation suffices. Errors: {error_code, message, details, request_id}.',
      },
      ...(extra.webhooks ? { webhooks: extra.webhooks } : {}),
      components: {
        securitySchemes: {
          OAuth2: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials',
            flows: { clientCredentials: { tokenUrl: '/oauth2/token', scopes: { ...SCOPES } } },
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
