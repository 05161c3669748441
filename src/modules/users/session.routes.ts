import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { onRequestHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { errorResponses } from '../../http/schemas.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import type { SessionLimits } from './sessions.js';
import { SessionResponse, SetPasswordBody, SetPasswordResponse, SignInBody } from './users.schemas.js';
import { usersService } from './users.service.js';

const tags = ['Console session'];

/**
 * Sign-in, the current session, sign-out, and the one-time password link: the console's own operations
 * (docs/console.md). Registered inside the scope that has @fastify/session and @fastify/csrf-protection.
 */
export function sessionRoutes(
  db: Db,
  limits: SessionLimits,
  csrfProtection: onRequestHookHandler,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    const answer = async (request: Parameters<onRequestHookHandler>[0], reply: Parameters<onRequestHookHandler>[1]) => {
      const { userId, accountId, signedInAt } = request.session;
      if (!userId || !accountId || signedInAt === undefined) throw errors.missingSession();
      const user = await usersService.get(db, accountId, userId);
      // The answer holds the session's CSRF token: no cache may keep it.
      void reply.header('cache-control', 'no-store');
      return { user, csrf_token: reply.generateCsrf(), expires_at: microsToIso(signedInAt + limits.absolute) };
    };

    app.post(
      '/auth/session',
      {
        // Sign-in runs argon2 (64 MiB, three passes): the address's sign-in budget comes first (http/rate-limit.ts).
        config: { signIn: true },
        schema: {
          operationId: 'signIn',
          summary: 'Sign in to the console',
          description:
            'Checks the email and password, ends any session the browser had, and starts a new one in an HttpOnly cookie. The same 401 INVALID_CREDENTIALS answers an unknown email, a wrong password and a disabled user; after 5 failures in a row the user is locked out for 15 minutes (429 SIGN_IN_LOCKED, Retry-After).',
          tags,
          body: SignInBody,
          response: { 200: SessionResponse, ...errorResponses(400, 401, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const user = await usersService.signIn(db, request.body.email, request.body.password);
        // A new id at sign-in: an id planted in the browser before (session fixation) never becomes signed in.
        await request.session.regenerate();
        request.session.userId = user.user_id;
        request.session.accountId = user.account_id;
        request.session.signedInAt = nowMicros();
        return answer(request, reply);
      },
    );

    app.get(
      '/auth/session',
      {
        schema: {
          operationId: 'getSession',
          summary: 'The signed-in user, and the CSRF token of the session',
          description:
            "The user the session's cookie signs in (their current role), the session's CSRF token to send as X-CSRF-Token on writes, and when the session ends at the latest; 401 UNAUTHORIZED when not signed in or the session has ended.",
          tags,
          response: { 200: SessionResponse, ...errorResponses(401, 500, 503) },
        },
      },
      async (request, reply) => answer(request, reply),
    );

    app.delete(
      '/auth/session',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'signOut',
          summary: 'Sign out: the session ends on the server at once',
          description: 'Needs the X-CSRF-Token of the session.',
          tags,
          response: { 200: Type.Object({}), ...errorResponses(401, 403, 500, 503) },
        },
      },
      async (request) => {
        if (!request.session.userId) throw errors.missingSession();
        await request.session.destroy();
        return {};
      },
    );

    app.post(
      '/auth/password',
      {
        config: { signIn: true },
        schema: {
          operationId: 'setPassword',
          summary: 'Set a password with a one-time link',
          description:
            'The token of a link made by `svc users create` or `svc users reset-password`; it works once, for 72 hours. Ends every session the user had. A password the service refuses (shorter than 12 characters, the email) leaves the link usable.',
          tags,
          body: SetPasswordBody,
          response: { 200: SetPasswordResponse, ...errorResponses(400, 500, 503) },
        },
      },
      async (request) => ({ user: await usersService.setPassword(db, request.body.token, request.body.password) }),
    );
  };
}
