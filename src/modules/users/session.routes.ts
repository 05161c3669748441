import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { onRequestHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { errorResponses } from '../../http/schemas.js';
import { mfaRoutes } from './mfa.routes.js';
import { passkeysRoutes } from './passkeys.routes.js';
import { relyingPartyOf } from './passkeys.service.js';
import { answerSession, beginSession } from './session.replies.js';
import type { SessionLimits } from './sessions.js';
import { signInService } from './sign-in.service.js';
import { THROTTLE } from './sign-in-throttle.js';
import { SessionResponse, SetPasswordBody, SetPasswordResponse, SignInBody } from './users.schemas.js';
import { usersAdminRoutes } from './users.routes.js';
import { usersService } from './users.service.js';
import { PASSWORD_MIN } from './passwords.js';

const tags = ['Console session'];
const minutes = (micros: number) => micros / 60_000_000;

/**
 * Sign-in (two steps when the user has set up two-step sign-in), the current session, sign-out, and the
 * one-time password link: the console's own operations (docs/console.md). Registered inside the scope that has
 * @fastify/session and @fastify/csrf-protection, with the two-step sign-in routes (passkeys' relying party is
 * `publicUrl`) and the account admin's users routes.
 */
export function sessionRoutes(
  db: Db,
  limits: SessionLimits,
  csrfProtection: onRequestHookHandler,
  publicUrl: string,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/auth/session',
      {
        // Sign-in runs argon2 (64 MiB, three passes): the address's sign-in budget comes first (http/rate-limit.ts).
        config: { signIn: true },
        schema: {
          operationId: 'signIn',
          summary: 'Sign in to the console',
          description: `Checks the email and password, ends any session the browser had, and starts a new one in an HttpOnly cookie. Its \`step\` says what comes next: SIGNED_IN, or for a user with two-step sign-in a code (MFA_CODE, POST /auth/mfa/verify), or for a user of an account that requires it and has not set it up, the set-up (MFA_ENROLMENT); until then the session calls nothing else. The same 401 INVALID_CREDENTIALS answers an unknown email, a wrong password, a disabled user and a user without a password. Failed attempts are counted per (email, client address) and per client address, known email or not: after ${THROTTLE.pairFree} failures for one email from one address (${THROTTLE.addressFree} from one address, whatever the emails) attempts are refused for ${THROTTLE.firstDelay / 1_000_000} s, then twice as long after each further failure, at most ${minutes(THROTTLE.maxDelay)} minutes (429 SIGN_IN_LOCKED with Retry-After, even for the right password); a success clears the count of its email and address. A stranger elsewhere never locks a user out, and the answers do not tell whether an email exists.`,
          tags,
          body: SignInBody,
          response: { 200: SessionResponse, ...errorResponses(400, 401, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const { user, step } = await signInService.password(db, request.body.email, request.body.password, request.ip);
        await beginSession(request, user, step);
        return answerSession(db, limits, request, reply);
      },
    );

    app.get(
      '/auth/session',
      {
        schema: {
          operationId: 'getSession',
          summary: 'The signed-in user, and the CSRF token of the session',
          description:
            "The user the session's cookie signs in (their current role), the session's step (a sign-in halfway says what it waits for), the session's CSRF token to send as X-CSRF-Token on writes, and when the session ends at the latest; 401 UNAUTHORIZED when not signed in or the session has ended.",
          tags,
          response: { 200: SessionResponse, ...errorResponses(401, 500, 503) },
        },
      },
      async (request, reply) => answerSession(db, limits, request, reply),
    );

    app.delete(
      '/auth/session',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'signOut',
          summary: 'Sign out: the session ends on the server at once',
          description: 'Needs the X-CSRF-Token of the session. Also ends a sign-in halfway.',
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
          description: `The token of a link made by \`svc users create\` or \`svc users reset-password\`; it works once, for 72 hours. Ends every session the user had. The password (NIST SP 800-63B): at least ${PASSWORD_MIN} characters after NFKC normalisation, any printing characters and spaces, no composition rules; refused when easy to guess (zxcvbn-ts's estimate below 3 of 4, with the user's email and account as known words) or equal to the email, with 400 INVALID_REQUEST at /password saying what to do. A refused password leaves the link usable.`,
          tags,
          body: SetPasswordBody,
          response: { 200: SetPasswordResponse, ...errorResponses(400, 500, 503) },
        },
      },
      async (request) => ({ user: await usersService.setPassword(db, request.body.token, request.body.password) }),
    );

    await app.register(mfaRoutes(db, limits, csrfProtection));
    await app.register(passkeysRoutes(db, limits, csrfProtection, relyingPartyOf(publicUrl)));
    await app.register(usersAdminRoutes(db));
  };
}
