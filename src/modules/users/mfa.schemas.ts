import { Type } from 'typebox';
import { Nullable, oneOf, Timestamp } from '../../http/schemas.js';
import { SessionResponse, User } from './users.schemas.js';

const Code = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The 6 digits the authenticator app shows now, or a recovery code (spaces and hyphens are ignored)',
});

export const CodeBody = Type.Object({ code: Code }, { additionalProperties: false, title: 'MfaCodeRequest' });

export const TotpCodeBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64, description: 'The 6 digits the authenticator app shows now' }) },
  { additionalProperties: false, title: 'TotpCodeRequest' },
);

export const MfaStatus = Type.Object(
  {
    totp_enrolled: Type.Boolean({ description: 'A TOTP authenticator is set up' }),
    passkeys: Type.Integer({
      minimum: 0,
      description: 'Passkeys and security keys registered (GET /auth/mfa/passkeys)',
    }),
    recovery_codes_left: Type.Integer({ minimum: 0, description: 'Unused recovery codes' }),
    required_by_account: Type.Boolean({ description: 'The account requires two-step sign-in of every user' }),
  },
  { title: 'MfaStatus' },
);

export const TotpEnrolment = Type.Object(
  {
    secret: Type.String({ description: 'The key (base32), for an app that cannot scan the QR code' }),
    otpauth_uri: Type.String({ description: 'otpauth://totp/… (Key URI Format): show it as a QR code' }),
  },
  { title: 'TotpEnrolment' },
);

export const RecoveryCodes = Type.Array(Type.String(), {
  description:
    'Single-use codes for when the authenticator is lost: shown in this answer only (svc keeps their hashes)',
});

export const TotpConfirmed = Type.Object(
  { recovery_codes: RecoveryCodes, session: SessionResponse },
  { title: 'TotpConfirmed' },
);

export const MfaVerified = Type.Object(
  {
    session: SessionResponse,
    used: oneOf(
      ['TOTP', 'RECOVERY_CODE', 'PASSKEY'] as const,
      'What signed in: RECOVERY_CODE is used up now; PASSKEY answers POST /auth/mfa/passkeys/verify only',
    ),
    recovery_codes_left: Type.Integer({ minimum: 0 }),
  },
  { title: 'MfaVerified' },
);

export const NewRecoveryCodes = Type.Object({ recovery_codes: RecoveryCodes }, { title: 'NewRecoveryCodes' });

export const UserList = Type.Object({ items: Type.Array(User) }, { title: 'ConsoleUserList' });

export const UserParams = Type.Object(
  { user_id: Type.String({ minLength: 1, maxLength: 255, description: 'The console user (usr_…)' }) },
  { additionalProperties: false },
);

export const AccountUserSettings = Type.Object(
  {
    mfa_required: Type.Boolean({
      description:
        'Every console user of the account must use two-step sign-in: one who has not set it up does so at their next sign-in, before anything else',
    }),
    updated_at: Nullable(Timestamp),
  },
  { title: 'AccountUserSettings' },
);

export const AccountUserSettingsBody = Type.Object(
  { mfa_required: Type.Boolean() },
  { additionalProperties: false, title: 'AccountUserSettingsUpdate' },
);
