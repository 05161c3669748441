import { Type } from 'typebox';
import { oneOf, Timestamp } from '../../http/schemas.js';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords.js';
import { ROLES } from './roles.js';

export const User = Type.Object(
  {
    user_id: Type.String(),
    account_id: Type.String(),
    email: Type.String(),
    role: oneOf(ROLES, 'ACCOUNT_ADMIN: everything; BOOKKEEPER: review, code, approve, field values; READ_ONLY: reads'),
    status: oneOf(['ACTIVE', 'DISABLED', 'INVITED'] as const, 'INVITED: no password set yet'),
    mfa_enrolled: Type.Boolean({
      description:
        'Two-step sign-in is set up (a TOTP authenticator, or a passkey): sign-in asks for a second step after the password',
    }),
    created_at: Timestamp,
  },
  { title: 'ConsoleUser' },
);

export const SignInBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false, title: 'SignInRequest' },
);

export const SignInStep = oneOf(
  ['SIGNED_IN', 'MFA_CODE', 'MFA_ENROLMENT'] as const,
  'SIGNED_IN: the session may call the API. MFA_CODE: the second step: a code of the authenticator, or a recovery code, to POST /auth/mfa/verify, or a passkey (POST /auth/mfa/passkeys/authentication-options, then /auth/mfa/passkeys/verify); `mfa_factors` says which the user has. MFA_ENROLMENT: the account requires two-step sign-in: set it up (POST /auth/mfa/totp, then /auth/mfa/totp/confirm; or a passkey: POST /auth/mfa/passkeys/registration-options, then /auth/mfa/passkeys). Until SIGNED_IN the session calls nothing else, and ends 15 minutes after the password.',
);

export const SessionResponse = Type.Object(
  {
    user: User,
    step: SignInStep,
    csrf_token: Type.String({
      description: 'Send as X-CSRF-Token on every POST, PUT and DELETE made with this session',
    }),
    expires_at: Timestamp,
    scopes: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "Only once SIGNED_IN: the API scopes the session's requests carry, its user's role's (the console offers what they allow; the server decides on every request)",
      }),
    ),
    mfa_factors: Type.Optional(
      Type.Array(oneOf(['TOTP', 'PASSKEY', 'RECOVERY_CODE'] as const), {
        description:
          'Only while `step` is MFA_CODE: what may answer the second step (an authenticator app, a passkey, a recovery code)',
      }),
    ),
  },
  { title: 'ConsoleSession' },
);

export const SetPasswordBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: "The one-time link's token" }),
    password: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters (after NFKC normalisation), any printing characters and spaces; refused when easy to guess (common passwords, words and names alone, repeats, sequences, keyboard patterns, dates, the email), with what to do in the message`,
    }),
  },
  { additionalProperties: false, title: 'SetPasswordRequest' },
);

export const SetPasswordResponse = Type.Object({ user: User }, { title: 'SetPasswordResponse' });
