import { Type } from 'typebox';
import { Nullable, oneOf, Timestamp } from '../../http/schemas.js';
import { RecoveryCodes } from './mfa.schemas.js';
import { SessionResponse } from './users.schemas.js';

/*
 * WebAuthn's JSON forms (WebAuthn Level 3, §5.1.8 and §5.1.9: what PublicKeyCredential.toJSON() and
 * @simplewebauthn/browser answer, and what the options of navigator.credentials.create()/get() take). Binary
 * members are base64url without padding. Bounds: a credential id is at most 1023 bytes; the rest leaves room for
 * authenticator extensions.
 */
const b64url = (maxLength: number, description?: string) =>
  Type.String({
    maxLength,
    pattern: '^[A-Za-z0-9_-]*$',
    ...(description === undefined ? {} : { description }),
  });
const CredentialId = b64url(1400, "The credential's id (base64url)");
const PublicKey = oneOf(['public-key'] as const);
const Attachment = oneOf(['platform', 'cross-platform'] as const);
const Transports = Type.Array(Type.String({ maxLength: 32 }), {
  maxItems: 10,
  description: 'How the browser reaches the authenticator: usb, nfc, ble, internal, hybrid…',
});

const ClientExtensionResults = Type.Object(
  {
    credProps: Type.Optional(Type.Object({ rk: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
  },
  { additionalProperties: false, description: 'The outputs of the extensions asked for: credProps at registration' },
);

const RegistrationCredential = Type.Object(
  {
    id: CredentialId,
    rawId: CredentialId,
    type: PublicKey,
    response: Type.Object(
      {
        clientDataJSON: b64url(4096),
        attestationObject: b64url(16384),
        authenticatorData: Type.Optional(b64url(8192)),
        transports: Type.Optional(Transports),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(b64url(4096)),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: Type.Optional(Attachment),
    clientExtensionResults: ClientExtensionResults,
  },
  {
    additionalProperties: false,
    title: 'PasskeyRegistrationCredential',
    description: 'What navigator.credentials.create() answered, as JSON (startRegistration of @simplewebauthn/browser)',
  },
);

const AuthenticationCredential = Type.Object(
  {
    id: CredentialId,
    rawId: CredentialId,
    type: PublicKey,
    response: Type.Object(
      {
        clientDataJSON: b64url(4096),
        authenticatorData: b64url(8192),
        signature: b64url(1024),
        userHandle: Type.Optional(b64url(128)),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: Type.Optional(Attachment),
    clientExtensionResults: ClientExtensionResults,
  },
  {
    additionalProperties: false,
    title: 'PasskeyAuthenticationCredential',
    description: 'What navigator.credentials.get() answered, as JSON (startAuthentication of @simplewebauthn/browser)',
  },
);

export const PasskeyRegistrationBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A name to tell it apart by: "YubiKey 5", "Work laptop" (1 to 64 characters, not only spaces)',
    }),
    credential: RegistrationCredential,
  },
  { additionalProperties: false, title: 'PasskeyRegistrationRequest' },
);

export const PasskeyAuthenticationBody = Type.Object(
  { credential: AuthenticationCredential },
  { additionalProperties: false, title: 'PasskeyAuthenticationRequest' },
);

export const PasskeyParams = Type.Object(
  { passkey_id: Type.String({ minLength: 1, maxLength: 255, description: 'The passkey (pky_…)' }) },
  { additionalProperties: false },
);

const Descriptor = Type.Object({
  id: CredentialId,
  type: Type.String({ description: 'public-key' }),
  transports: Type.Optional(Transports),
});
const UserVerification = oneOf(['discouraged', 'preferred', 'required'] as const);

export const PasskeyRegistrationOptions = Type.Object(
  {
    challenge: Type.String({ description: 'base64url; answered once, within `timeout`, by this session' }),
    rp: Type.Object({ name: Type.String(), id: Type.String({ description: "PUBLIC_URL's host name" }) }),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
    pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: PublicKey })),
    timeout: Type.Integer({ description: 'milliseconds' }),
    attestation: oneOf(['none', 'indirect', 'direct', 'enterprise'] as const),
    excludeCredentials: Type.Array(Descriptor, { description: "The user's passkeys: not registered twice" }),
    authenticatorSelection: Type.Object({
      residentKey: Type.Optional(oneOf(['discouraged', 'preferred', 'required'] as const)),
      requireResidentKey: Type.Optional(Type.Boolean()),
      userVerification: Type.Optional(UserVerification),
      authenticatorAttachment: Type.Optional(Attachment),
    }),
    extensions: Type.Object({ credProps: Type.Optional(Type.Boolean()) }),
    hints: Type.Array(oneOf(['hybrid', 'security-key', 'client-device'] as const)),
  },
  {
    title: 'PasskeyRegistrationOptions',
    description: 'The publicKey options of navigator.credentials.create(), as JSON (startRegistration takes them)',
  },
);

export const PasskeyAuthenticationOptions = Type.Object(
  {
    challenge: Type.String({ description: 'base64url; answered once, within `timeout`, by this session' }),
    rpId: Type.String({ description: "PUBLIC_URL's host name" }),
    allowCredentials: Type.Array(Descriptor, { description: "The user's passkeys" }),
    timeout: Type.Integer({ description: 'milliseconds' }),
    userVerification: UserVerification,
  },
  {
    title: 'PasskeyAuthenticationOptions',
    description: 'The publicKey options of navigator.credentials.get(), as JSON (startAuthentication takes them)',
  },
);

export const Passkey = Type.Object(
  {
    passkey_id: Type.String(),
    name: Type.String(),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
  },
  { title: 'Passkey' },
);

export const PasskeyList = Type.Object({ items: Type.Array(Passkey) }, { title: 'PasskeyList' });

export const PasskeyRegistered = Type.Object(
  {
    passkey: Passkey,
    recovery_codes: Nullable(RecoveryCodes),
    session: SessionResponse,
  },
  {
    title: 'PasskeyRegistered',
    description:
      "`recovery_codes`: made when the passkey is the user's first second factor (shown in this answer only), else null (the codes they have stay)",
  },
);
