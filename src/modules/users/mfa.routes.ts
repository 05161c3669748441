import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { onRequestHookHandler } from 'fastify';
import type { Db } from '../../db/database.js';
import { errorResponses } from '../../http/schemas.js';
import {
  CodeBody,
  MfaStatus,
  MfaVerified,
  NewRecoveryCodes,
  TotpCodeBody,
  TotpConfirmed,
  TotpEnrolment,
} from './mfa.schemas.js';
import { mfaService, RECOVERY_CODES } from './mfa.service.js';
import { answerSession, beginSession, sessionOf } from './session.replies.js';
import type { SessionLimits } from './sessions.js';
import { usersService } from './users.service.js';

const tags = ['Console session'];
const CSRF = 'Needs the X-CSRF-Token of the session.';

/**
 * Two-step sign-in (docs/console.md): a user sets up a TOTP authenticator (and gets recovery codes), and signs in
 * with a code of it after the password. The session's own operations, with its CSRF token on every write.
 */
export function mfaRoutes(
  db: Db,
  limits: SessionLimits,
  csrfProtection: onRequestHookHandler,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/auth/mfa',
      {
        schema: {
          operationId: 'getMfaStatus',
          summary: "The session user's two-step sign-in",
          description:
            'Whether a TOTP authenticator is set up, how many passkeys are registered and recovery codes left, and whether the account requires two-step sign-in. For a signed-in session, or one that must set it up (MFA_ENROLMENT).',
          tags,
          response: { 200: MfaStatus, ...errorResponses(401, 409, 500, 503) },
        },
      },
      async (request) => {
        const { userId, accountId } = sessionOf(request, ['SIGNED_IN', 'MFA_ENROLMENT']);
        return mfaService.status(db, { account_id: accountId, user_id: userId });
      },
    );

    app.post(
      '/auth/mfa/totp',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'startTotpEnrolment',
          summary: 'Set up an authenticator app: a new TOTP secret',
          description: `A new secret (RFC 6238: SHA-1, 6 digits, 30 s) as an otpauth:// URI to show as a QR code, and as text; it counts once a code of it is confirmed (POST /auth/mfa/totp/confirm). A set-up not confirmed is replaced by the next. 409 when one is set up already (an account admin resets it). For a signed-in session, or one that must set it up (MFA_ENROLMENT). ${CSRF}`,
          tags,
          response: { 200: TotpEnrolment, ...errorResponses(401, 403, 409, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const { userId, accountId } = sessionOf(request, ['SIGNED_IN', 'MFA_ENROLMENT']);
        const user = await usersService.get(db, accountId, userId);
        // The answer holds the secret: no cache may keep it.
        void reply.header('cache-control', 'no-store');
        return mfaService.startTotp(db, user);
      },
    );

    app.post(
      '/auth/mfa/totp/confirm',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'confirmTotpEnrolment',
          summary: 'Confirm the authenticator with a code of it; answers the recovery codes, once',
          description: `The code the app shows now: the authenticator is set up, and ${RECOVERY_CODES} single-use recovery codes are made, in this answer only (svc keeps their hashes). A session that had to set it up (MFA_ENROLMENT) is signed in now, under a new id (and CSRF token, in \`session\`). A wrong code is 400 INVALID_MFA_CODE and counts as a failed sign-in (429 SIGN_IN_LOCKED when throttled). ${CSRF}`,
          tags,
          body: TotpCodeBody,
          response: { 200: TotpConfirmed, ...errorResponses(400, 401, 403, 409, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const { userId, accountId, step } = sessionOf(request, ['SIGNED_IN', 'MFA_ENROLMENT']);
        const user = { account_id: accountId, user_id: userId };
        const { recovery_codes } = await mfaService.confirmTotp(db, user, request.body.code, request.ip);
        if (step === 'MFA_ENROLMENT') await beginSession(request, user, 'SIGNED_IN');
        void reply.header('cache-control', 'no-store');
        return { recovery_codes, session: await answerSession(db, limits, request, reply) };
      },
    );

    app.post(
      '/auth/mfa/verify',
      {
        // A guess at a code, like a password's: counted against the address's sign-in budget too (http/rate-limit.ts).
        config: { signIn: true },
        onRequest: csrfProtection,
        schema: {
          operationId: 'verifyMfa',
          summary: 'The second step of a sign-in: a code of the authenticator, or a recovery code',
          description: `For a session whose sign-in waits for a code (MFA_CODE): the 6 digits the app shows now (accepted once: a code used before is refused), or an unused recovery code (used up now). Signs the session in under a new id (and CSRF token, in \`session\`). A wrong, used or replayed code is 400 INVALID_MFA_CODE and counts as a failure per user and per client address, throttled as passwords are (429 SIGN_IN_LOCKED with Retry-After). ${CSRF}`,
          tags,
          body: CodeBody,
          response: { 200: MfaVerified, ...errorResponses(400, 401, 403, 409, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const { userId, accountId } = sessionOf(request, ['MFA_CODE']);
        const user = { account_id: accountId, user_id: userId };
        const verified = await mfaService.verify(db, user, request.body.code, request.ip);
        await beginSession(request, user, 'SIGNED_IN');
        return { ...verified, session: await answerSession(db, limits, request, reply) };
      },
    );

    app.post(
      '/auth/mfa/recovery-codes',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'renewRecoveryCodes',
          summary: 'New recovery codes, for a code of the authenticator',
          description: `${RECOVERY_CODES} new single-use recovery codes in place of the old ones (which stop working), in this answer only. Takes a current code of the authenticator, so that a session alone cannot. ${CSRF}`,
          tags,
          body: TotpCodeBody,
          response: { 200: NewRecoveryCodes, ...errorResponses(400, 401, 403, 409, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const { userId, accountId } = sessionOf(request, ['SIGNED_IN']);
        void reply.header('cache-control', 'no-store');
        return mfaService.renewRecoveryCodes(
          db,
          { account_id: accountId, user_id: userId },
          request.body.code,
          request.ip,
        );
      },
    );
  };
}
