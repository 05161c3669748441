import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { operatorToken } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { FAULT_METHODS, fastifyPath, type FaultBook, type FaultMethod, type FaultState } from './faults.service.js';
import { sandboxService } from './sandbox.service.js';
import {
  AccountParams,
  AdvancedTime,
  AdvanceTimeBody,
  ClientParams,
  ExpiredTokens,
  ExpireTokensBody,
  Fault,
  FaultBody,
  FaultList,
  FiredEvents,
  FireEventBody,
  NewAccountBody,
  ResetAnswer,
  SandboxAccount,
  tags,
} from './sandbox.schemas.js';

const faultOf = (state: FaultState) => ({
  client_id: state.clientId,
  kind: state.kind,
  count: state.count,
  fraction: state.fraction,
  delay_ms: state.delayMs,
  retry_after: state.retryAfter,
  method: state.method,
  route: state.route,
});

/** A request that sends no body at all, or an empty one (whatever its Content-Type says). */
const bodiless = (request: FastifyRequest) =>
  request.headers['content-length'] === '0' ||
  (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined);

/**
 * Hooks of a route whose body is all defaults: no body, or an empty one, is `{}` (a sandbox account with no
 * scenario), not a 400 — `curl -X POST` with the operator's token is enough.
 */
const emptyBodyIsDefaults = {
  onRequest: (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (bodiless(request)) delete request.headers['content-type'];
    done();
  },
  preValidation: (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    request.body ??= {};
    done();
  },
};

const operatorOnly =
  'Sandbox servers only (SANDBOX=true; absent elsewhere). Authorization: Bearer <SANDBOX_ADMIN_TOKEN>, the sandbox operator’s token, not an API client’s.';

/**
 * The sandbox's controls (docs/sandbox.md), registered only when SANDBOX=true. They answer the operator's token
 * alone (SANDBOX_ADMIN_TOKEN): whoever holds it makes accounts on this server, so it is not an API client's
 * token, and no client can reach these routes with its own.
 */
export function sandboxRoutes(db: Db, adminToken: string, faults: FaultBook): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', operatorToken(adminToken));

    app.post(
      '/sandbox/v1/accounts',
      {
        ...emptyBodyIsDefaults,
        schema: {
          operationId: 'createSandboxAccount',
          summary: 'A new sandbox account with a client, its credentials, and a scenario’s data, in one call',
          description: `${operatorOnly} The client holds every scope; its secret is in this answer alone. Without a scenario, the account is empty.`,
          tags,
          body: NewAccountBody,
          response: { 200: SandboxAccount, ...errorResponses(401) },
        },
      },
      async (request) => sandboxService.createAccount(db, request.body.scenario ?? 'empty', request.body.seed),
    );

    app.delete(
      '/sandbox/v1/accounts/:account_id',
      {
        schema: {
          operationId: 'deleteSandboxAccount',
          summary: 'Close a sandbox account: its clients are revoked, their tokens stop working at once',
          description: `${operatorOnly} An account without an active client (unknown, or closed already) → 404.`,
          tags,
          params: AccountParams,
          response: { 200: Type.Object({}), ...errorResponses(401, 404) },
        },
      },
      async (request) => {
        await sandboxService.deleteAccount(db, faults, request.params.account_id);
        return {};
      },
    );

    app.post(
      '/sandbox/v1/accounts/:account_id/reset',
      {
        ...emptyBodyIsDefaults,
        schema: {
          operationId: 'resetSandboxAccount',
          summary: 'Empty a sandbox account and lay a scenario into it; its clients and credentials stay',
          description: `${operatorOnly} Its records (with their history), fields and values are deleted, then the scenario (default empty) is written. Events already in its feed stay. An account without an active client → 404.`,
          tags,
          params: AccountParams,
          body: NewAccountBody,
          response: { 200: ResetAnswer, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => ({
        account_id: request.params.account_id,
        scenario: await sandboxService.resetAccount(
          db,
          request.params.account_id,
          request.body.scenario ?? 'empty',
          request.body.seed,
        ),
      }),
    );

    app.post(
      '/sandbox/v1/accounts/:account_id/events',
      {
        schema: {
          operationId: 'fireSandboxEvent',
          summary: 'Announce an event of the account on demand: the feed lists it, its webhook endpoints receive it',
          description: `${operatorOnly} Written as the service writes its own events (signed, retried, redeliverable). The record, field or integration it names must exist in the account (404 otherwise); a record's event carries its current version. Nothing else changes. An account without an active client → 404.`,
          tags,
          params: AccountParams,
          body: FireEventBody,
          response: { 200: FiredEvents, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => ({
        events: await sandboxService.fireEvent(db, request.params.account_id, request.body),
      }),
    );

    app.post(
      '/sandbox/v1/accounts/:account_id/advance-time',
      {
        schema: {
          operationId: 'advanceSandboxTime',
          summary: 'Let time pass for the account’s webhook schedules: retries come due, give-ups and disabling arrive',
          description: `${operatorOnly} Waiting deliveries are moved \`seconds\` earlier (their next attempt and the start of their three-day retry window), and failing endpoints' "failing since" too, so that the next dispatcher round retries, gives a delivery up after three days, or disables an endpoint failing for five, as it would after that time. Records' dates do not move (svc computes nothing from them). An account without an active client → 404.`,
          tags,
          params: AccountParams,
          body: AdvanceTimeBody,
          response: { 200: AdvancedTime, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => sandboxService.advanceTime(db, request.params.account_id, request.body.seconds),
    );

    app.post(
      '/sandbox/v1/clients/:client_id/faults',
      {
        schema: {
          operationId: 'setSandboxFault',
          summary: 'Make the next requests of one client fail, or slow, or lose their answer',
          description: `${operatorOnly} Replaces the client's fault; other clients are not affected. A counted fault ends when used up; a fraction lasts until cleared.`,
          tags,
          params: ClientParams,
          body: FaultBody,
          response: { 200: Fault, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const { kind, count, fraction, delay_ms, retry_after, method, route } = request.body;
        if (count !== undefined && fraction !== undefined) {
          throw errors.invalidField('/fraction', 'give count or fraction, not both');
        }
        const routeExists = (only: FaultMethod | null, template: string) =>
          (only === null ? FAULT_METHODS : [only]).some((m) => app.hasRoute({ method: m, url: fastifyPath(template) }));
        const state = await sandboxService.setFault(
          db,
          faults,
          request.params.client_id,
          {
            kind,
            count: fraction === undefined ? (count ?? 1) : null,
            fraction: fraction ?? null,
            delayMs: delay_ms ?? 1000,
            retryAfter: retry_after ?? 1,
            method: method ?? null,
            route: route ?? null,
          },
          routeExists,
        );
        return faultOf(state);
      },
    );

    app.get(
      '/sandbox/v1/clients/:client_id/faults',
      {
        schema: {
          operationId: 'listSandboxFaults',
          summary: 'The faults set on one client, the narrowest first',
          description: `${operatorOnly} A counted fault shows the requests it still affects; a used-up one is gone.`,
          tags,
          params: ClientParams,
          response: { 200: FaultList, ...errorResponses(401, 404) },
        },
      },
      async (request) => ({
        items: (await sandboxService.listFaults(db, faults, request.params.client_id)).map(faultOf),
      }),
    );

    app.post(
      '/sandbox/v1/clients/:client_id/tokens/expire',
      {
        ...emptyBodyIsDefaults,
        schema: {
          operationId: 'expireSandboxTokens',
          summary: 'Expire the client’s access tokens now, as if their hour were over',
          description: `${operatorOnly} Every live access token of the client, or only \`access_token\`: the next request with one answers 401 invalid_token, and a client that can fetch a new token does. An unknown or revoked client, or a token that is not a live one of the client → 404.`,
          tags,
          params: ClientParams,
          body: ExpireTokensBody,
          response: { 200: ExpiredTokens, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => sandboxService.expireTokens(db, request.params.client_id, request.body.access_token),
    );

    app.delete(
      '/sandbox/v1/clients/:client_id/faults',
      {
        schema: {
          operationId: 'clearSandboxFault',
          summary: 'Clear the client’s faults: its requests run normally again',
          description: operatorOnly,
          tags,
          params: ClientParams,
          response: { 200: Type.Object({}), ...errorResponses(401, 404) },
        },
      },
      async (request) => {
        await sandboxService.clearFault(db, faults, request.params.client_id);
        return {};
      },
    );
  };
}
