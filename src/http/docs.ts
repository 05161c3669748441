import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { PARTNER_SCOPES, SCOPES } from '../modules/auth/scopes.js';

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
          'Authenticate with OAuth 2.0 at POST /oauth2/token (client credentials, or authorization code for a partner app) and send `Authorization: Bearer <token>`. ' +
          'Any one of the scopes listed for an operation suffices. Errors: {error_code, message, details, request_id}.',
      },
      ...(extra.webhooks ? { webhooks: extra.webhooks } : {}),
      components: {
        securitySchemes: {
          ConsoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'svc_session',
            description:
              "The console's session cookie (`__Host-svc_session` over https), with the session's CSRF token in X-CSRF-Token on writes: operations of the console's people alone (docs/console.md); the user's role must allow them.",
          },
          OAuth2: {
            type: 'oauth2',
            description:
              'OAuth 2.0: client credentials for an API client of one account; authorization code with PKCE (S256) and rotating refresh tokens for a partner app an account admin connects (docs/integration.md). Metadata: /.well-known/oauth-authorization-server.',
            flows: {
              clientCredentials: { tokenUrl: '/oauth2/token', scopes: { ...SCOPES } },
              authorizationCode: {
                authorizationUrl: '/oauth2/authorize',
                tokenUrl: '/oauth2/token',
                refreshUrl: '/oauth2/token',
                scopes: Object.fromEntries(PARTNER_SCOPES.map((scope) => [scope, SCOPES[scope]])),
              },
            },
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
