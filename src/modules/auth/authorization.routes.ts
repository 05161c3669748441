import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { auditOf, authOf } from '../../http/auth.js';
import { writeTransaction } from '../../http/idempotency.js';
import { errorResponses, Nullable, Timestamp } from '../../http/schemas.js';
import { CODE_TTL_SECONDS, connectionsService, consentService } from './consent.service.js';
import { PARTNER_SCOPES } from './scopes.js';

const param = (description: string) => Type.Optional(Type.String({ maxLength: 2000, description }));

/** The query of an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3). */
const AuthorizationQuery = Type.Object(
  {
    response_type: param('Must be `code`.'),
    client_id: param("The partner app's id (app_…)."),
    redirect_uri: param('One of the redirect URIs registered for the app, exactly.'),
    scope: param('Space-separated scopes the app asks for (scopes of the public API only).'),
    state: param('Returned unchanged with the answer.'),
    code_challenge: param('PKCE: BASE64URL(SHA256(code_verifier)), 43 characters.'),
    code_challenge_method: param('Must be `S256`.'),
  },
  { additionalProperties: true },
);

const ConsentView = Type.Object(
  {
    app: Type.Object({ app_id: Type.String(), name: Type.String() }),
    account_id: Type.String(),
    redirect_uri: Type.String(),
    scopes: Type.Array(Type.Object({ scope: Type.String(), description: Type.String() })),
    state: Nullable(Type.String()),
  },
  { title: 'ConsentRequest' },
);

const ConsentDecision = Type.Object(
  {
    ...AuthorizationQuery.properties,
    approve: Type.Boolean({ description: 'true: connect the app and answer a code; false: access_denied.' }),
  },
  { additionalProperties: false, title: 'ConsentDecision' },
);

const ConsentAnswer = Type.Object(
  {
    redirect_to: Type.String({ description: "Where the browser goes next: the app's redirect URI, with the answer." }),
  },
  { title: 'ConsentAnswer' },
);

const ConnectedApp = Type.Object(
  {
    app_id: Type.String(),
    name: Type.String(),
    scopes: Type.Array(Type.String()),
    connected_at: Timestamp,
    connected_by: Nullable(Type.String({ description: 'The console user who connected it (usr_…).' })),
  },
  { title: 'ConnectedApp' },
);

const AppParams = Type.Object(
  { app_id: Type.String({ minLength: 1, maxLength: 255, description: 'The connected app (app_…)' }) },
  { additionalProperties: false },
);

const consentTags = ['Internal: partner apps'];

/**
 * OAuth 2.0 authorization code for partner apps (docs/integration.md, "Connecting a partner app"): the authorization
 * endpoint hands the browser to the console's consent screen, which uses the consent operations below; the account's
 * admins list and revoke connected apps; the server's metadata (RFC 8414).
 */
export function authorizationRoutes(db: Db, issuer: string): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/oauth2/authorize',
      {
        schema: {
          summary: 'Authorization endpoint (OAuth 2.0 authorization code with PKCE)',
          description:
            "Sends the browser to the console's consent screen, where an account admin (signed in) approves or denies the app's request; the answer goes to the app's redirect URI: `code`, `state` and `iss` (RFC 9207), or `error`. A request without a valid client_id and redirect_uri is shown to the user, never redirected.",
          tags: ['OAuth 2.0'],
          querystring: AuthorizationQuery,
          response: { 302: Type.Null({ description: 'To /console/oauth/authorize with the same query.' }) },
        },
      },
      async (request, reply) => {
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        return reply.header('cache-control', 'no-store').redirect(`/console/oauth/authorize${query}`, 302);
      },
    );

    app.get(
      '/.well-known/oauth-authorization-server',
      {
        schema: {
          summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
          description:
            'The endpoints, grant types, PKCE method, client authentication methods and the scopes a partner app may ask for; `issuer` is PUBLIC_URL.',
          tags: ['OAuth 2.0'],
          response: { 200: Type.Object({}, { additionalProperties: true, title: 'AuthorizationServerMetadata' }) },
        },
      },
      async () => ({
        issuer,
        authorization_endpoint: `${issuer}/oauth2/authorize`,
        token_endpoint: `${issuer}/oauth2/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        scopes_supported: [...PARTNER_SCOPES],
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${issuer}/docs`,
      }),
    );

    app.get(
      '/internal/v1/oauth/consent',
      {
        config: { scopes: ['account.admin'], consoleOnly: true },
        schema: {
          operationId: 'describeConsent',
          summary: "What the consent screen shows for a partner app's authorization request",
          description:
            "The authorization request's parameters, as /oauth2/authorize received them. Valid: the app, the scopes in words. Not valid: 400 INVALID_AUTHORIZATION_REQUEST with `details.error` (the OAuth error code) and `details.redirect_to` (where to send the browser, or null when the client or redirect URI is not valid). Account admins signed in to the console only.",
          tags: consentTags,
          querystring: AuthorizationQuery,
          response: { 200: ConsentView },
        },
      },
      async (request) => consentService.describe(db, authOf(request), request.query, issuer),
    );

    app.post(
      '/internal/v1/oauth/consent',
      {
        config: { scopes: ['account.admin'], idempotency: 'refused', consoleOnly: true },
        schema: {
          operationId: 'decideConsent',
          summary: "Approve or deny a partner app's authorization request",
          description: `Approve: connects the app to the account (once; a later approval adds scopes) and answers the redirect with a single-use code valid ${CODE_TTL_SECONDS} seconds, bound to the app, the redirect URI and the PKCE challenge. Deny: the redirect carries error=access_denied. Errors as for the description.`,
          tags: consentTags,
          body: ConsentDecision,
          response: { 200: ConsentAnswer },
        },
      },
      async (request) => {
        const { approve, ...query } = request.body;
        return consentService.decide(db, auditOf(request), query, approve, issuer);
      },
    );

    app.get(
      '/internal/v1/connected-apps',
      {
        config: { scopes: ['account.admin'] },
        schema: {
          operationId: 'listConnectedApps',
          summary: "The partner apps connected to the account (ours, not the reference's)",
          description:
            'Each connected app once, with the scopes its admins granted (all approvals together), when and by whom it was first connected. Revoked apps are not listed.',
          tags: consentTags,
          response: { 200: Type.Object({ items: Type.Array(ConnectedApp) }, { title: 'ConnectedAppList' }) },
        },
      },
      async (request) => ({ items: await connectionsService.list(db, authOf(request).accountId) }),
    );

    app.delete(
      '/internal/v1/connected-apps/:app_id',
      {
        config: { scopes: ['account.admin'] },
        schema: {
          operationId: 'revokeConnectedApp',
          summary: "Revoke a partner app's connection: its tokens stop working at once",
          description:
            'Its access tokens answer 401 on their next request, its refresh tokens and unused codes are spent. An app not connected to the account → 404. Connecting it again needs a new authorization.',
          tags: consentTags,
          params: AppParams,
          response: { 200: Type.Object({}), ...errorResponses(404) },
        },
      },
      async (request, reply) =>
        writeTransaction(db, request, reply, async (ex) => {
          await connectionsService.revoke(ex, auditOf(request), request.params.app_id);
          return {};
        }),
    );
  };
}
