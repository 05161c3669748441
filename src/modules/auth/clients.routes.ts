import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { auditOf, authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses, Nullable, oneOf, Timestamp } from '../../http/schemas.js';
import { authService, DEFAULT_OVERLAP_SECONDS, MAX_OVERLAP_SECONDS } from './auth.service.js';
import { clientScopesService } from './client-scopes.service.js';
import { ALL_SCOPES } from './scopes.js';

const tags = ['Internal: API clients'];
const ScopeSchema = oneOf(ALL_SCOPES, 'An OAuth scope');

const ClientName = Type.String({
  maxLength: 100,
  description: 'What the admin calls the client ("ERP nightly sync"); surrounding spaces are dropped, "" for none',
});

const ApiClient = Type.Object(
  {
    client_id: Type.String(),
    account_id: Type.String(),
    name: Type.String({ description: 'What the admin calls the client; "" when unnamed' }),
    scopes: Type.Array(Type.String()),
    created_at: Timestamp,
    revoked_at: Nullable(Timestamp),
    last_used_at: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'When the client last obtained an access token, to the minute (written at most once a minute); null: never',
      }),
    ),
  },
  { title: 'ApiClient' },
);

const NewClientBody = Type.Object(
  {
    name: Type.Optional(ClientName),
    scopes: Type.Array(ScopeSchema, {
      minItems: 1,
      maxItems: ALL_SCOPES.length,
      uniqueItems: true,
      description: 'What the client may do; any one listed scope of an operation suffices',
    }),
  },
  { additionalProperties: false, title: 'ApiClientCreateRequest' },
);

const NewClientResponse = Type.Object(
  {
    client_id: Type.String(),
    client_secret: Type.String({ description: 'Shown in this answer only: svc keeps its hash alone' }),
    account_id: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
  },
  { title: 'ApiClientCredentials' },
);

const ClientParams = Type.Object(
  { client_id: Type.String({ minLength: 1, maxLength: 255, description: 'The API client (cli_…)' }) },
  { additionalProperties: false },
);

/** The account's API clients (scope account.admin): `svc clients` for the account's own admins, over the API. */
export function clientsRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/v1/clients',
      {
        config: { scopes: ['account.admin'] },
        schema: {
          operationId: 'listApiClients',
          summary: "The account's API clients, revoked ones included",
          description:
            "Every API client of the caller's account, in creation order, with its scopes and when it was revoked (null while active); never a secret.",
          tags,
          response: { 200: Type.Object({ items: Type.Array(ApiClient) }, { title: 'ApiClientList' }) },
        },
      },
      async (request) => ({ items: await authService.listClients(db, authOf(request).accountId) }),
    );

    app.post(
      '/internal/v1/clients',
      {
        config: { scopes: ['account.admin'], idempotency: 'refused' },
        schema: {
          operationId: 'createApiClient',
          summary: 'A new API client of the account; its secret is in this answer and nowhere else',
          description:
            'Takes no Idempotency-Key (400): an idempotent replay would have to store the secret. A retry after a lost answer makes a second client; revoke the one whose secret you do not have.',
          tags,
          body: NewClientBody,
          response: { 200: NewClientResponse },
        },
      },
      async (request) => {
        const caller = authOf(request);
        const scopes = request.body.scopes;
        // No escalation: a caller grants only scopes it holds itself.
        const beyond = scopes.filter((scope) => !caller.scopes.has(scope));
        if (beyond.length > 0) throw errors.scopesNotHeld(beyond);
        return authService.createClient(db, caller.accountId, scopes, auditOf(request), request.body.name?.trim());
      },
    );

    app.post(
      '/internal/v1/clients/:client_id/rotate-secret',
      {
        config: { scopes: ['account.admin'], idempotency: 'refused' },
        schema: {
          operationId: 'rotateApiClientSecret',
          summary: "Rotate an API client's secret, with an overlap",
          description: `A new secret, in this answer only. The previous secret keeps working overlap_seconds more (default ${DEFAULT_OVERLAP_SECONDS}, a day; 0 stops it at once), so an integration can switch without a moment when neither works; tokens already issued are not affected. Takes no Idempotency-Key (the answer holds the secret). Another account's client, an unknown one or one revoked → 404.`,
          tags,
          params: ClientParams,
          body: Type.Object(
            {
              overlap_seconds: Type.Optional(
                Type.Integer({
                  minimum: 0,
                  maximum: MAX_OVERLAP_SECONDS,
                  description: 'How long the previous secret keeps working, in seconds',
                }),
              ),
            },
            { additionalProperties: false, title: 'ApiClientRotateSecretRequest' },
          ),
          response: {
            200: Type.Object(
              {
                client_id: Type.String(),
                client_secret: Type.String({ description: 'Shown in this answer only: svc keeps its hash alone' }),
                previous_secret_expires_at: Nullable(
                  Type.String({
                    format: 'date-time',
                    description: 'Until when the previous secret works; null: no longer',
                  }),
                ),
              },
              { title: 'ApiClientRotatedSecret' },
            ),
            ...errorResponses(404),
          },
        },
      },
      async (request) =>
        db.write((ex) =>
          authService.rotateSecret(
            ex,
            request.params.client_id,
            request.body?.overlap_seconds ?? DEFAULT_OVERLAP_SECONDS,
            authOf(request).accountId,
            auditOf(request),
          ),
        ),
    );

    app.patch(
      '/internal/v1/clients/:client_id',
      {
        config: { scopes: ['account.admin'] },
        schema: {
          operationId: 'updateApiClient',
          summary: 'Rename an API client or change its scopes',
          description:
            "Renames the client (audited as api_client.renamed) and/or replaces its scopes (audited as api_client.scopes_changed), in one transaction. A scope taken away is taken from its live access tokens at once (a token left with none stops working: 401); a scope added reaches only tokens issued from now on. A caller adds only scopes it holds itself (403 FORBIDDEN, details.scopes_not_held); scopes the client has already may stay. Another account's client, an unknown one or one revoked → 404.",
          tags,
          params: ClientParams,
          body: Type.Object(
            {
              name: Type.Optional(ClientName),
              scopes: Type.Optional(
                Type.Array(ScopeSchema, {
                  minItems: 1,
                  maxItems: ALL_SCOPES.length,
                  uniqueItems: true,
                  description: 'Every scope the client has from now on',
                }),
              ),
            },
            { additionalProperties: false, minProperties: 1, title: 'ApiClientUpdateRequest' },
          ),
          response: { 200: ApiClient, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        const caller = authOf(request);
        return writeTransaction(db, request, reply, (ex) =>
          clientScopesService.update(ex, request.params.client_id, request.body, {
            accountId: caller.accountId,
            grantable: caller.scopes,
            source: auditOf(request),
          }),
        );
      },
    );

    app.delete(
      '/internal/v1/clients/:client_id',
      {
        config: { scopes: ['account.admin'] },
        schema: {
          operationId: 'revokeApiClient',
          summary: 'Revoke an API client: its tokens stop working at once',
          description:
            "Revokes the client and deletes its tokens: the next request with one of them answers 401. Another account's client, an unknown one or one already revoked → 404.",
          tags,
          params: ClientParams,
          response: { 200: Type.Object({}), ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, async (ex) => {
          await authService.revokeClientIn(ex, request.params.client_id, authOf(request).accountId, auditOf(request));
          return {};
        }),
    );
  };
}
