import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import type { Limiter } from '../../http/rate-limit.js';
import { toAppError } from '../../http/error-handler.js';
import { textProblems } from '../../http/validation.js';
import { isRecord } from '../../lib/guards.js';
import { authService, OAuthError } from './auth.service.js';

const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ description: 'Must be `client_credentials`.' })),
    scope: Type.Optional(
      Type.String({ description: "Space-separated scopes, a subset of the client's, to narrow the token." }),
    ),
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
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'invalid_scope',
        'unsupported_grant_type',
        'temporarily_unavailable',
        'server_error',
      ],
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

    // Every answer of the token endpoint is in the OAuth shape (RFC 6749 §5.2) and never cached, failures of
    // the framework included: another content type or an unparsable body is `invalid_request` 400, as OAuth
    // clients expect, rather than the API's 415. Over the rate limit: 429 `temporarily_unavailable` (the
    // registered OAuth code for a temporary overload) with Retry-After.
    app.setErrorHandler((error, request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      if (error instanceof OAuthError) {
        if (error.status === 401 && /^Basic/i.test(request.headers.authorization ?? '')) {
          reply.header('www-authenticate', 'Basic realm="svc"');
        }
        return reply.code(error.status).send({ error: error.error, error_description: error.description });
      }
      const appError = toAppError(error, request);
      if (appError.status === 429) {
        return reply
          .code(429)
          .headers(appError.headers)
          .send({ error: 'temporarily_unavailable', error_description: appError.message });
      }
      if (appError.status >= 500) {
        if (appError.status === 503) {
          return reply
            .code(503)
            .headers(appError.headers)
            .send({ error: 'temporarily_unavailable', error_description: appError.message });
        }
        request.log.error({ err: error }, 'token request failed');
        return reply.code(500).send({ error: 'server_error', error_description: 'An unexpected error occurred.' });
      }
      const description =
        appError.code === 'UNSUPPORTED_MEDIA_TYPE'
          ? `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send application/x-www-form-urlencoded or application/json.`
          : appError.message;
      return reply.code(400).send({ error: 'invalid_request', error_description: description });
    });

    // RFC 6749 §3.2: parameters must not be included more than once. Checked before the schema, whose
    // type errors would otherwise hide the reason.
    app.addHook('preValidation', async (request) => {
      const body = request.body;
      if (body === null || typeof body !== 'object') return;
      for (const [name, value] of Object.entries(body)) {
        if (Array.isArray(value)) throw new OAuthError('invalid_request', `Parameter ${name} is repeated.`);
      }
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
          response: {
            200: TokenResponse,
            400: OAuthErrorResponse,
            401: OAuthErrorResponse,
            429: OAuthErrorResponse,
            500: OAuthErrorResponse,
            503: OAuthErrorResponse,
          },
        },
      },
      async (request, reply) => {
        await limiter.check(reply, `token:${request.ip}`);
        const body = isRecord(request.body) ? request.body : {};
        const basic = basicCredentials(request.headers.authorization);
        const inBody = body.client_id !== undefined || body.client_secret !== undefined;
        if (basic && inBody) {
          throw new OAuthError('invalid_request', 'Use one client authentication method, not both.');
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
        // No client id or secret holds U+0000 or a lone surrogate; PostgreSQL cannot even compare such text
        // (a 500 before), so they are refused as unknown credentials before any lookup.
        if (textProblems(id).length > 0 || textProblems(secret).length > 0)
          throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
        const scope = typeof body.scope === 'string' ? body.scope : undefined;
        const token = await authService.issueToken(db.direct, id, secret, scope, ttlSeconds);
        return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(token);
      },
    );
  };
}
