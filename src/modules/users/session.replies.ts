import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { mfaService, type MfaFactor, type SignInStep } from './mfa.service.js';
import { sessionEnd, type SessionLimits } from './sessions.js';
import { ROLE_SCOPES } from './roles.js';
import { usersService, type UserDto } from './users.service.js';

/** What the /auth routes answer for a session: its user, its step, its CSRF token and when it ends at the latest. */
export interface SessionAnswer {
  user: UserDto;
  step: SignInStep;
  csrf_token: string;
  expires_at: string;
  /** once SIGNED_IN: the scopes the session's requests carry (its user's role's) */
  scopes?: string[];
  /** while the step is MFA_CODE: what may answer it */
  mfa_factors?: MfaFactor[];
}

/** The session's user and step; refused unless its step is one of `allowed` (401 for none at all). */
export function sessionOf(
  request: FastifyRequest,
  allowed: readonly SignInStep[],
): { userId: string; accountId: string; step: SignInStep } {
  const { userId, accountId, signedInAt, step = 'SIGNED_IN' } = request.session;
  if (!userId || !accountId || signedInAt === undefined) throw errors.missingSession();
  if (allowed.includes(step)) return { userId, accountId, step };
  // A sign-in halfway is not signed in: it is answered as no session, except where it is told its next step.
  if (step !== 'SIGNED_IN') throw errors.missingSession();
  throw errors.conflict('This session is signed in already.', { step });
}

export async function answerSession(
  db: Db,
  limits: SessionLimits,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<SessionAnswer> {
  const { userId, accountId, signedInAt, step } = request.session;
  if (!userId || !accountId || signedInAt === undefined) throw errors.missingSession();
  const user = await usersService.get(db, accountId, userId);
  // The answer holds the session's CSRF token: no cache may keep it.
  void reply.header('cache-control', 'no-store');
  return {
    user,
    step: step ?? 'SIGNED_IN',
    csrf_token: reply.generateCsrf(),
    expires_at: microsToIso(sessionEnd({ signedInAt, step }, limits)),
    ...(step === undefined ? { scopes: [...ROLE_SCOPES[user.role]] } : {}),
    ...(step === 'MFA_CODE'
      ? { mfa_factors: await mfaService.factors(db, { account_id: accountId, user_id: userId }) }
      : {}),
  };
}

/**
 * Starts the session of `user` at `step` under a new id: an id planted in the browser before (session fixation),
 * or the id of the sign-in halfway, never becomes signed in.
 */
export async function beginSession(
  request: FastifyRequest,
  user: { user_id: string; account_id: string },
  step: SignInStep,
): Promise<void> {
  await request.session.regenerate();
  request.session.userId = user.user_id;
  request.session.accountId = user.account_id;
  request.session.signedInAt = nowMicros();
  if (step !== 'SIGNED_IN') request.session.step = step;
}
