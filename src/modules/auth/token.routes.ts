import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/dialect.js';
import type { Limiter } from '../../http/rate-limit.js';
import { isAppError } from '../../errors.js';
import { authService, OAuthError } from './auth.service.js';

const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ description: 'Must be `client_credentials`.' })),
    scope: Type.Optional(Type.String({ description: 'Space-separated scopes, a subset of the client\'s, to narrow the token.' })),
    client_id: Type.Optional(Type.String({ description: 'With client_secret, instead of HTTP Basic.' })),
    client_secret: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
  scope: Type.String({ description: 'The granted scopes, space-separated.' }),
});

const OAuthErrorResponse = Type.Object(
  {
    error: Type.String({
      enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'invalid_scope', 'unsupported_grant_type'],
    }),
    error_description: Type.String(),
  },
  { title: 'OAuthError' },
);

function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  if (!header || !/^Basic\s+/i.test(header)) return null;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials.', 401);
  // RFC 6749 §2.3.1: the id and secret are form-urlencoded before Basic encoding.
  const unescape = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: unescape(decoded.slice(0, colon)), secret: unescape(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials.', 401);
  }
}

/**
 * POST /oauth2/token: OAuth 2.0 client credentials (RFC 6749 §4.4). Its own encapsulated scope: it alone
 * accepts form bodies, and its errors use the OAuth shape {error, error_description}.
 */
export function tokenRoutes(db: Db, ttlSeconds: number, limiter: Limiter) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    await app.register(formbody);

    app.setErrorHandler((error, request, reply) => {
      let oauth: OAuthError;
      if (error instanceof OAuthError) oauth = error;
      else if (isAppError(error) && error.status === 429) {
        return reply.code(429).headers(error.headers).send({ error: 'invalid_request', error_description: error.message });
      } else if ((error as { statusCode?: number }).statusCode !== undefined && (error as { statusCode: number }).statusCode < 500) {
        oauth = new OAuthError('invalid_request', 'The request body is not a valid token request.');
      } else {
        request.log.error({ err: error }, 'token request failed');
        return reply.code(500).send({ error: 'server_error', error_description: 'An unexpected error occurred.' });
      }
      if (oauth.status === 401 && /^Basic/i.test(request.headers.authorization ?? '')) {
        reply.header('www-authenticate', 'Basic realm="svc"');
      }
      return reply.code(oauth.status).header('cache-control', 'no-store').send({ error: oauth.error, error_description: oauth.description });
    });

    app.post(
      '/oauth2/token',
      {
        schema: {
          summary: 'Issue an access token (OAuth 2.0 client credentials)',
          description:
            'Authenticate with HTTP Basic (client_id:client_secret) or with `client_id` and `client_secret` in the body. Form-encoded or JSON. Tokens live TOKEN_TTL_SECONDS (default 3600).',
          tags: ['OAuth 2.0'],
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          body: TokenRequest,
          response: { 200: TokenResponse, 400: OAuthErrorResponse, 401: OAuthErrorResponse, 429: OAuthErrorResponse },
        },
      },
      async (request, reply) => {
        await limiter.check(reply, `token:${request.ip}`);
        const body = (request.body ?? {}) as Record<string, unknown>;
        const basic = basicCredentials(request.headers.authorization);
        const inBody = body.client_id !== undefined || body.client_secret !== undefined;
        if (basic && inBody) {
          throw new OAuthError('invalid_request', 'Use one client authentication method, not both.');
        }
        for (const name of ['grant_type', 'scope', 'client_id', 'client_secret']) {
          if (Array.isArray(body[name])) throw new OAuthError('invalid_request', `Parameter ${name} repeated.`);
        }
        const id = basic?.id ?? (typeof body.client_id === 'string' ? body.client_id : undefined);
        const secret = basic?.secret ?? (typeof body.client_secret === 'string' ? body.client_secret : undefined);
        if (body.grant_type === undefined || body.grant_type === '') {
          throw new OAuthError('invalid_request', 'grant_type is required.');
        }
        if (body.grant_type !== 'client_credentials') {
          throw new OAuthError('unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
        }
        if (!id || !secret) throw new OAuthError('invalid_client', 'Client credentials are missing.', 401);
        const scope = typeof body.scope === 'string' ? body.scope : undefined;
        const token = await authService.issueToken(db.kysely, id, secret, scope, ttlSeconds);
        return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(token);
      },
    );
  };
}
