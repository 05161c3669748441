import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { errorResponses } from '../../http/schemas.js';
import type { AuditSource } from '../audit/audit.service.js';
import { MfaVerified } from './mfa.schemas.js';
import {
  Passkey,
  PasskeyAuthenticationBody,
  PasskeyAuthenticationOptions,
  PasskeyList,
  PasskeyParams,
  PasskeyRegistered,
  PasskeyRegistrationBody,
  PasskeyRegistrationOptions,
} from './passkeys.schemas.js';
import { CEREMONY_TTL, MAX_PASSKEYS, passkeysService, type RelyingParty } from './passkeys.service.js';
import { answerSession, beginSession, sessionOf } from './session.replies.js';
import type { SessionLimits } from './sessions.js';
import { usersService } from './users.service.js';

const tags = ['Console session'];
const CSRF = 'Needs the X-CSRF-Token of the session.';
const TTL = `${CEREMONY_TTL / 60_000_000} minutes`;

/** The session's user as the audit log records them: the user, from the request's address, under its id. */
const sourceOf = (request: FastifyRequest, user: { accountId: string; userId: string }): AuditSource => ({
  accountId: user.accountId,
  actor: { type: 'user', id: user.userId },
  address: request.ip,
  requestId: request.id,
});

/**
 * Passkeys and security keys as a second factor (docs/console.md, "Two-step sign-in"): registration by a signed-in
 * user (or one whose account requires two-step sign-in and who is setting it up), listing and removal, and the
 * second step of a sign-in with one. The session's own operations, with its CSRF token on every write.
 */
export function passkeysRoutes(
  db: Db,
  limits: SessionLimits,
  csrfProtection: onRequestHookHandler,
  rp: RelyingParty,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    const ceremonyOf = (request: FastifyRequest) => ({ rp, sessionId: request.session.sessionId });

    app.get(
      '/auth/mfa/passkeys',
      {
        schema: {
          operationId: 'listPasskeys',
          summary: "The session user's passkeys",
          description: "Each passkey's id, name, when it was added and last used (never its key). A signed-in session.",
          tags,
          response: { 200: PasskeyList, ...errorResponses(401, 500, 503) },
        },
      },
      async (request) => {
        const { userId, accountId } = sessionOf(request, ['SIGNED_IN']);
        return { items: await passkeysService.list(db, { account_id: accountId, user_id: userId }) };
      },
    );

    app.post(
      '/auth/mfa/passkeys/registration-options',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'startPasskeyRegistration',
          summary: 'Add a passkey: the options of navigator.credentials.create()',
          description: `A new challenge for this session (answered once, within ${TTL}), the relying party (PUBLIC_URL's host), the user, and the user's passkeys to exclude. Give them to startRegistration of @simplewebauthn/browser, then send its answer to POST /auth/mfa/passkeys. 409 with ${MAX_PASSKEYS} passkeys already. For a signed-in session, or one that must set up two-step sign-in (MFA_ENROLMENT). ${CSRF}`,
          tags,
          body: Type.Object({}, { additionalProperties: false }),
          response: { 200: PasskeyRegistrationOptions, ...errorResponses(401, 403, 409, 500, 503) },
        },
      },
      async (request) => {
        const { userId, accountId } = sessionOf(request, ['SIGNED_IN', 'MFA_ENROLMENT']);
        const user = await usersService.get(db, accountId, userId);
        return passkeysService.registrationOptions(db, ceremonyOf(request), user);
      },
    );

    app.post(
      '/auth/mfa/passkeys',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'registerPasskey',
          summary: 'Add a passkey: the credential the browser made, with a name',
          description: `The answer of navigator.credentials.create() to this session's challenge (attestation none; svc keeps the credential's public key). A user's first second factor comes with new recovery codes, in this answer only. A session that had to set up two-step sign-in (MFA_ENROLMENT) is signed in now, under a new id (and CSRF token, in \`session\`). An answer that does not verify (another challenge, an expired or used one, another origin) is 400 INVALID_PASSKEY; the challenge is used up either way. ${CSRF}`,
          tags,
          body: PasskeyRegistrationBody,
          response: { 200: PasskeyRegistered, ...errorResponses(400, 401, 403, 409, 500, 503) },
        },
      },
      async (request, reply) => {
        const { userId, accountId, step } = sessionOf(request, ['SIGNED_IN', 'MFA_ENROLMENT']);
        const user = { account_id: accountId, user_id: userId };
        const registered = await passkeysService.register(
          db,
          sourceOf(request, { accountId, userId }),
          ceremonyOf(request),
          user,
          request.body,
        );
        if (step === 'MFA_ENROLMENT') await beginSession(request, user, 'SIGNED_IN');
        return { ...registered, session: await answerSession(db, limits, request, reply) };
      },
    );

    app.delete(
      '/auth/mfa/passkeys/:passkey_id',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'removePasskey',
          summary: 'Remove a passkey',
          description: `It no longer signs in. Another user's passkey, or an unknown one, is 404. 409 when it is the last second factor (no other passkey, no authenticator app) and the account requires two-step sign-in; a user left with no second factor loses their recovery codes too. ${CSRF}`,
          tags,
          params: PasskeyParams,
          response: { 200: Passkey, ...errorResponses(401, 403, 404, 409, 500, 503) },
        },
      },
      async (request) => {
        const { userId, accountId } = sessionOf(request, ['SIGNED_IN']);
        return passkeysService.remove(
          db,
          sourceOf(request, { accountId, userId }),
          { account_id: accountId, user_id: userId },
          request.params.passkey_id,
        );
      },
    );

    app.post(
      '/auth/mfa/passkeys/authentication-options',
      {
        onRequest: csrfProtection,
        schema: {
          operationId: 'startPasskeySignIn',
          summary: 'The second step of a sign-in with a passkey: the options of navigator.credentials.get()',
          description: `For a session whose sign-in waits for its second step (MFA_CODE) and whose user has a passkey (\`mfa_factors\` says PASSKEY; else 409): a new challenge for this session (answered once, within ${TTL}) and the user's passkeys. Give them to startAuthentication of @simplewebauthn/browser, then send its answer to POST /auth/mfa/passkeys/verify. ${CSRF}`,
          tags,
          body: Type.Object({}, { additionalProperties: false }),
          response: { 200: PasskeyAuthenticationOptions, ...errorResponses(401, 403, 409, 500, 503) },
        },
      },
      async (request) => {
        const { userId, accountId } = sessionOf(request, ['MFA_CODE']);
        return passkeysService.authenticationOptions(db, ceremonyOf(request), {
          account_id: accountId,
          user_id: userId,
        });
      },
    );

    app.post(
      '/auth/mfa/passkeys/verify',
      {
        // A guess at the second step, like a code's: counted against the address's sign-in budget too.
        config: { signIn: true },
        onRequest: csrfProtection,
        schema: {
          operationId: 'verifyPasskey',
          summary: 'The second step of a sign-in: the answer of a passkey',
          description: `For a session whose sign-in waits for its second step (MFA_CODE): the answer of navigator.credentials.get() to this session's challenge, by one of the user's passkeys, on PUBLIC_URL's origin. Signs the session in under a new id (and CSRF token, in \`session\`). Any failure (another user's passkey, a challenge used, expired or never asked, another origin, a bad signature or counter) is 400 INVALID_PASSKEY, uses the challenge up, and counts as a wrong code does, per user and per client address (429 SIGN_IN_LOCKED with Retry-After). ${CSRF}`,
          tags,
          body: PasskeyAuthenticationBody,
          response: { 200: MfaVerified, ...errorResponses(400, 401, 403, 409, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const { userId, accountId } = sessionOf(request, ['MFA_CODE']);
        const user = { account_id: accountId, user_id: userId };
        const verified = await passkeysService.authenticate(
          db,
          ceremonyOf(request),
          user,
          request.body.credential,
          request.ip,
        );
        await beginSession(request, user, 'SIGNED_IN');
        return { ...verified, session: await answerSession(db, limits, request, reply) };
      },
    );
  };
}
