import { Type } from 'typebox';
import { oneOf, Timestamp } from '../../http/schemas.js';
import { ROLES } from './roles.js';

export const User = Type.Object(
  {
    user_id: Type.String(),
    account_id: Type.String(),
    email: Type.String(),
    role: oneOf(ROLES, 'ACCOUNT_ADMIN: everything; BOOKKEEPER: review, code, approve, field values; READ_ONLY: reads'),
    status: oneOf(['ACTIVE', 'DISABLED', 'INVITED'] as const, 'INVITED: no password set yet'),
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

export const SessionResponse = Type.Object(
  {
    user: User,
    csrf_token: Type.String({
      description: 'Send as X-CSRF-Token on every POST, PUT and DELETE made with this session',
    }),
    expires_at: Timestamp,
  },
  { title: 'ConsoleSession' },
);

export const SetPasswordBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: "The one-time link's token" }),
    password: Type.String({ minLength: 1, maxLength: 1024, description: 'At least 12 characters' }),
  },
  { additionalProperties: false, title: 'SetPasswordRequest' },
);

export const SetPasswordResponse = Type.Object({ user: User }, { title: 'SetPasswordResponse' });
