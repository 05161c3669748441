import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import type { Limiter } from '../../http/rate-limit.js';
import { authService } from './auth.service.js';
import { tokenService } from './token.service.js';

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

/**
 * POST /oauth2/token (RFC 6749): the rules are tokenService's. Its own encapsulated scope: it alone accepts form
 * bodies; every answer, failures included, is in OAuth's shape and never cached (route config).
 */
export function tokenRoutes(db: Db, ttlSeconds: number, limiter: Limiter, commitDeadlineMs: number) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    await app.register(formbody);
    const tokens = authService.tokenWriter(db, commitDeadlineMs);

    app.post(
      '/oauth2/token',
      {
        // Every answer in OAuth's shape, none cached (http/error-handler.ts, app.ts).
        config: { answers: 'oauth', holdsSecret: true },
        // A token request is a few short parameters (its schema leaves their lengths to the grant's own checks).
        bodyLimit: 8192,
        // Counted before the body is read: a budget per client address against secret guessing.
        onRequest: (request, reply, done) => {
          limiter.check(request, reply, `ip:${request.ip}`).then(() => done(), done);
        },
        // A repeated parameter is named before the schema's type errors would hide the reason.
        preValidation: async (request) => tokenService.refuseRepeated(request.body),
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
            507: OAuthErrorResponse,
          },
        },
      },
      async (request, reply) => {
        const token = await tokenService.issue(
          db,
          tokens,
          { authorization: request.headers.authorization, body: request.body },
          ttlSeconds,
        );
        return reply.send(token);
      },
    );
  };
}
