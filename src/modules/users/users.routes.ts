import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import type { AuditSource } from '../audit/audit.service.js';
import type { AuthContext } from '../auth/auth.service.js';
import { AccountUserSettings, AccountUserSettingsBody, UserList, UserParams } from './mfa.schemas.js';
import { mfaService } from './mfa.service.js';
import { User } from './users.schemas.js';
import { usersService } from './users.service.js';

const tags = ['Internal: console users'];

/**
 * The caller the authentication hook let through (these routes declare scopes). Not http/auth.ts's authOf: these
 * routes are registered by http/console.ts, which http/auth.ts imports.
 */
function callerOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw errors.internal();
  return request.auth;
}

/** The caller with what its audit log entry records: the address and the request id. */
function sourceOf(request: FastifyRequest): AuditSource {
  return { ...callerOf(request), address: request.ip, requestId: request.id };
}

/**
 * An account admin's side of the console's users (scope account.admin, in the console only: a person's sign-in is
 * no business of an API client): the account's users, a reset of a user's two-step sign-in, and the account's
 * requirement of it. Registered with the session routes; authentication, the role's scopes and CSRF are the
 * authentication hook's, as for every route that declares scopes.
 */
export function usersAdminRoutes(db: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/v1/users',
      {
        config: { scopes: ['account.admin'], consoleOnly: true },
        schema: {
          operationId: 'listConsoleUsers',
          summary: "The account's console users",
          description:
            "Every console user of the caller's account, by email: role, status, and whether two-step sign-in is set up. An account admin signed in to the console only.",
          tags,
          response: { 200: UserList },
        },
      },
      async (request) => ({ items: await usersService.list(db, callerOf(request).accountId) }),
    );

    app.delete(
      '/internal/v1/users/:user_id/mfa',
      {
        config: { scopes: ['account.admin'], consoleOnly: true },
        schema: {
          operationId: 'resetConsoleUserMfa',
          summary: "Reset a user's two-step sign-in (a lost phone)",
          description:
            "Removes the user's authenticator, passkeys and recovery codes and ends their sessions at once: they sign in with their password alone next (and set up a second factor first, where the account requires it). Another account's user, or an unknown one, is 404.",
          tags,
          params: UserParams,
          response: { 200: User },
        },
      },
      async (request) => mfaService.reset(db, sourceOf(request), request.params.user_id),
    );

    app.get(
      '/internal/v1/account/user-settings',
      {
        config: { scopes: ['account.admin'], consoleOnly: true },
        schema: {
          operationId: 'getAccountUserSettings',
          summary: "The account's settings for its console users",
          description: 'Whether the account requires two-step sign-in of every console user.',
          tags,
          response: { 200: AccountUserSettings },
        },
      },
      async (request) => mfaService.settings(db, callerOf(request).accountId),
    );

    app.put(
      '/internal/v1/account/user-settings',
      {
        config: { scopes: ['account.admin'], consoleOnly: true },
        schema: {
          operationId: 'updateAccountUserSettings',
          summary: "Change the account's settings for its console users",
          description:
            "mfa_required true: every console user must use two-step sign-in; the sessions of those who have not set it up end at once, and their next sign-in sets it up before anything else (409 unless the admin has set it up). false: it becomes each user's choice again.",
          tags,
          body: AccountUserSettingsBody,
          response: { 200: AccountUserSettings },
        },
      },
      async (request) => mfaService.updateSettings(db, sourceOf(request), request.body),
    );
  };
}
