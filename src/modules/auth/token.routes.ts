import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import type { Limiter } from '../../http/rate-limit.js';
import { toAppError } from '../../http/error-handler.js';
import { textProblems } from '../../http/text-guard.js';
import { isOneOf, isRecord } from '../../lib/guards.js';
import { authService, OAuthError } from './auth.service.js';
import { grantsService } from './grants.service.js';
import { TokenWriter } from './tokens.writer.js';

const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token'] as const;

const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(
      Type.String({
        description: '`client_credentials` (an API client), `authorization_code` or `refresh_token` (a partner app).',
      }),
    ),
    scope: Type.Optional(
      Type.String({
        description:
          "Space-separated scopes, a subset of the client's (or of the refresh token's), to narrow the token.",
      }),
    ),
    client_id: Type.Optional(
      Type.String({ description: 'With client_secret, instead of HTTP Basic; alone for a public partner app.' }),
    ),
    client_secret: Type.Optional(Type.String()),
    code: Type.Optional(Type.String({ description: 'authorization_code: the code the redirect carried.' })),
    redirect_uri: Type.Optional(
      Type.String({ description: 'authorization_code: the redirect_uri of the authorization request, exactly.' }),
    ),
    code_verifier: Type.Optional(Type.String({ description: 'authorization_code: the PKCE verifier (RFC 7636).' })),
    refresh_token: Type.Optional(Type.String({ description: 'refresh_token: the latest refresh token.' })),
  },
  { additionalProperties: true },
);

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires.' }),
  scope: Type.String({ description: 'The granted scopes, space-separated.' }),
  refresh_token: Type.Optional(
    Type.String({
      description:
        'Partner apps (authorization_code, refresh_token): the next refresh token. Each is good for one use; using one twice revokes every token of its family.',
    }),
  ),
});

const OAuthErrorResponse = Type.Object(
  {
    error: Type.String({
      enum: [
        'invalid_request',
        'invalid_client',
        'invalid_grant',
        'invalid_scope',
        'unauthorized_client',
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
export function tokenRoutes(db: Db, ttlSeconds: number, limiter: Limiter, commitDeadlineMs: number) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    await app.register(formbody);
    const tokens = new TokenWriter(db, commitDeadlineMs);

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
        // A token request is a few short parameters (its schema leaves their lengths to the grant's own checks).
        bodyLimit: 8192,
        // Counted before the body is read: a budget per client address against secret guessing.
        onRequest: (request, reply, done) => {
          limiter.check(request, reply, `ip:${request.ip}`).then(() => done(), done);
        },
        schema: {
          summary: 'Issue an access token (OAuth 2.0)',
          description:
            'An API client: `client_credentials`, authenticated with HTTP Basic (client_id:client_secret) or with `client_id` and `client_secret` in the body. A partner app: `authorization_code` (with the code, the redirect_uri and the PKCE code_verifier) and `refresh_token` (rotated: each answer carries the next one; a replayed refresh token revokes its family); a confidential app authenticates as an API client does, a public app sends its client_id alone. Form-encoded or JSON. Access tokens live TOKEN_TTL_SECONDS (default 3600), refresh tokens 30 days, codes 120 seconds.',
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
        const grantType = body.grant_type;
        if (!isOneOf(GRANT_TYPES, grantType)) {
          throw new OAuthError(
            'unsupported_grant_type',
            'grant_type must be client_credentials, authorization_code or refresh_token.',
          );
        }
        if (!id) throw new OAuthError('invalid_client', 'Client credentials are missing.', 401);
        // No client id or secret holds U+0000 or a lone surrogate; PostgreSQL cannot even compare such text
        // (a 500 before), so they are refused as unknown credentials before any lookup.
        if (textProblems(id).length > 0 || (secret !== undefined && textProblems(secret).length > 0))
          throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
        const scope = typeof body.scope === 'string' ? body.scope : undefined;
        const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
        const appRow = id.startsWith('app_') ? await grantsService.findApp(db.direct, id) : undefined;
        let token;
        if (grantType === 'client_credentials') {
          if (appRow) {
            throw new OAuthError('unauthorized_client', 'A partner app uses authorization_code and refresh_token.');
          }
          if (!secret) throw new OAuthError('invalid_client', 'Client credentials are missing.', 401);
          token = await authService.issueToken(db.direct, tokens, id, secret, scope, ttlSeconds);
        } else {
          if (!appRow) {
            // An API client (or nobody) asks for a partner app's grant: authenticate it first, then refuse.
            if (!secret) throw new OAuthError('invalid_client', 'Client authentication failed.', 401);
            await authService.authenticateClient(db.direct, id, secret);
            throw new OAuthError('unauthorized_client', 'Only a partner app may use this grant type.');
          }
          const app = grantsService.authenticateApp(appRow, secret);
          token =
            grantType === 'authorization_code'
              ? await grantsService.exchangeCode(
                  db,
                  app,
                  { code: field('code'), redirect_uri: field('redirect_uri'), code_verifier: field('code_verifier') },
                  ttlSeconds,
                )
              : await grantsService.refresh(db, app, { refresh_token: field('refresh_token'), scope }, ttlSeconds);
        }
        return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(token);
      },
    );
  };
}
