import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL, isoUint8Array } from '@simplewebauthn/server/helpers';
import type { Db } from '../../db/database.js';
import { errors } from '../../errors.js';
import { microsToIso, nowMicros } from '../../lib/clock.js';
import { stringsOf } from '../../lib/guards.js';
import { newId } from '../../lib/ids.js';
import { auditService, type AuditSource } from '../audit/audit.service.js';
import { hashSecret } from '../auth/auth.service.js';
import { mfaRepository } from './mfa.repository.js';
import { replaceRecoveryCodes, secondStepAttempt } from './mfa.service.js';
import type { UserPasskeysTable } from './mfa.tables.js';
import { passkeysRepository, type PasskeyCeremony } from './passkeys.repository.js';

/**
 * Passkeys and security keys (WebAuthn, with @simplewebauthn/server) as a second factor of console sign-in, beside
 * the TOTP authenticator (docs/console.md, "Two-step sign-in"). The relying party is PUBLIC_URL: its host name is
 * the RP id, its origin the one origin accepted. Each ceremony's challenge is kept server-side on the session's row,
 * answered once within CEREMONY_TTL (a wrong answer uses it up too). The library checks the rest: the challenge,
 * origin, RP id hash, user presence, the signature against the stored public key, and that a counting
 * authenticator's counter moved on.
 */

/** The relying party's name shown by the browser: a constant, as no setting names it. */
const RP_NAME = 'svc';
/** EdDSA, ES256, RS256 (COSE): what passkeys and security keys make. The same list offers and verifies. */
const ALGORITHMS = [-8, -7, -257];
/** How long a ceremony's challenge may be answered (and the browser's timeout). */
export const CEREMONY_TTL = 5 * 60_000_000;
/** Passkeys a user may have at once. */
export const MAX_PASSKEYS = 10;
const TIMEOUT_MS = CEREMONY_TTL / 1000;

export interface RelyingParty {
  /** the host name of PUBLIC_URL (a domain: browsers take no IP address as an RP id) */
  id: string;
  /** the origin of PUBLIC_URL: an assertion made on any other page is refused */
  origin: string;
  name: string;
}

export const relyingPartyOf = (publicUrl: string): RelyingParty => {
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin, name: RP_NAME };
};

/** A passkey as listed and answered: never its key or counter. */
export interface PasskeyDto {
  passkey_id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

type UserKey = { account_id: string; user_id: string };
type Person = UserKey & { email: string };
/** A ceremony runs within one session: its challenge is kept on the session's row. */
interface Ceremony {
  rp: RelyingParty;
  sessionId: string;
}

const passkeyToDto = (row: UserPasskeysTable): PasskeyDto => ({
  passkey_id: row.passkey_id,
  name: row.name,
  created_at: microsToIso(row.created_at),
  last_used_at: row.last_used_at === null ? null : microsToIso(row.last_used_at),
});

const descriptorOf = (row: UserPasskeysTable) => ({ id: row.credential_id, transports: stringsOf(row.transports) });

/** The options as answered: each member the library sets, set (its types leave them optional). */
const creationOptions = (options: PublicKeyCredentialCreationOptionsJSON, rp: RelyingParty) => ({
  ...options,
  rp: { name: rp.name, id: rp.id },
  timeout: options.timeout ?? TIMEOUT_MS,
  attestation: options.attestation ?? 'none',
  excludeCredentials: options.excludeCredentials ?? [],
  authenticatorSelection: options.authenticatorSelection ?? {},
  extensions: { credProps: options.extensions?.credProps },
  hints: options.hints ?? [],
});

const requestOptions = (options: PublicKeyCredentialRequestOptionsJSON, rp: RelyingParty) => ({
  challenge: options.challenge,
  rpId: rp.id,
  allowCredentials: options.allowCredentials ?? [],
  timeout: options.timeout ?? TIMEOUT_MS,
  userVerification: options.userVerification ?? 'preferred',
});

const tooMany = (userId: string) =>
  errors.conflict(`You have ${MAX_PASSKEYS} passkeys, the most there may be: remove one first.`, { user_id: userId });

async function keepChallenge(db: Db, ceremony: Ceremony, kind: PasskeyCeremony, challenge: string): Promise<void> {
  const kept = await passkeysRepository.setChallenge(db.direct, hashSecret(ceremony.sessionId), {
    value: challenge,
    ceremony: kind,
    expiresAt: nowMicros() + CEREMONY_TTL,
  });
  if (!kept) throw errors.missingSession();
}

const takeChallenge = (db: Db, ceremony: Ceremony, kind: PasskeyCeremony) =>
  passkeysRepository.takeChallenge(db.direct, hashSecret(ceremony.sessionId), kind, nowMicros());

export const passkeysService = {
  async list(db: Db, user: UserKey): Promise<PasskeyDto[]> {
    return (await passkeysRepository.list(db.direct, user)).map(passkeyToDto);
  },

  /** The options of navigator.credentials.create() for a new passkey of the user; its challenge kept for the session. */
  async registrationOptions(db: Db, ceremony: Ceremony, user: Person) {
    const passkeys = await passkeysRepository.list(db.direct, user);
    if (passkeys.length >= MAX_PASSKEYS) throw tooMany(user.user_id);
    const options = await generateRegistrationOptions({
      rpName: ceremony.rp.name,
      rpID: ceremony.rp.id,
      // The user handle: the same for each of the user's passkeys, and nothing personal (an email may change).
      userID: isoUint8Array.fromUTF8String(user.user_id),
      userName: user.email,
      userDisplayName: user.email,
      timeout: TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: passkeys.map(descriptorOf),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    await keepChallenge(db, ceremony, 'REGISTRATION', options.challenge);
    return creationOptions(options, ceremony.rp);
  },

  /**
   * Registers the passkey the browser made for the session's challenge. The user's first second factor (no
   * authenticator app, no other passkey) comes with new recovery codes, answered once; otherwise null.
   */
  async register(
    db: Db,
    source: AuditSource,
    ceremony: Ceremony,
    user: UserKey,
    input: { name: string; credential: RegistrationResponseJSON },
  ): Promise<{ passkey: PasskeyDto; recovery_codes: string[] | null }> {
    const name = input.name.trim();
    if (name === '') throw errors.invalidField('/name', 'must not be only spaces');
    const challenge = await takeChallenge(db, ceremony, 'REGISTRATION');
    if (challenge === null) throw errors.invalidPasskey();
    const verified = await verifyRegistrationResponse({
      response: input.credential,
      expectedChallenge: challenge,
      expectedOrigin: ceremony.rp.origin,
      expectedRPID: ceremony.rp.id,
      // A second factor after the password: the user's presence is enough (their PIN or face is asked where set).
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    }).catch(() => null);
    if (!verified?.verified) throw errors.invalidPasskey();
    const { credential } = verified.registrationInfo;
    const now = nowMicros();
    const row: UserPasskeysTable = {
      account_id: user.account_id,
      user_id: user.user_id,
      passkey_id: newId('pky'),
      credential_id: credential.id,
      public_key: isoBase64URL.fromBuffer(credential.publicKey),
      counter: credential.counter,
      transports: JSON.stringify(credential.transports ?? []),
      name,
      created_at: now,
      last_used_at: null,
    };
    const recoveryCodes = await db.write(async (ex) => {
      await passkeysRepository.lockUser(ex, user);
      if (await passkeysRepository.credentialTaken(ex, credential.id)) {
        throw errors.conflict('This passkey is registered already.', { user_id: user.user_id });
      }
      const others = await passkeysRepository.count(ex, user);
      if (others >= MAX_PASSKEYS) throw tooMany(user.user_id);
      const first = others === 0 && !(await mfaRepository.findTotp(ex, user))?.confirmed_at;
      await passkeysRepository.insert(ex, row);
      await auditService.record(
        ex,
        source,
        'user.passkey_added',
        { type: 'user', id: user.user_id },
        { passkey_id: row.passkey_id, name },
      );
      return first ? replaceRecoveryCodes(ex, user, now) : null;
    });
    return { passkey: passkeyToDto(row), recovery_codes: recoveryCodes };
  },

  /**
   * Removes one of the user's passkeys (another's is 404). The last second factor of a user whose account requires
   * two-step sign-in stays (409); a user left with none has their recovery codes removed too.
   */
  async remove(db: Db, source: AuditSource, user: UserKey, passkeyId: string): Promise<PasskeyDto> {
    const removed = await db.write(async (ex) => {
      await passkeysRepository.lockUser(ex, user);
      const row = await passkeysRepository.delete(ex, user, passkeyId);
      if (!row) throw errors.notFound(`Passkey ${passkeyId}`, { passkey_id: passkeyId });
      const factorLeft =
        (await passkeysRepository.count(ex, user)) > 0 ||
        Boolean((await mfaRepository.findTotp(ex, user))?.confirmed_at);
      if (!factorLeft) {
        if ((await mfaRepository.settings(ex, user.account_id))?.mfa_required === 1) {
          throw errors.conflict(
            'Your account requires two-step sign-in, and this passkey is your last second factor: add another passkey or set up an authenticator app first.',
            { passkey_id: passkeyId },
          );
        }
        await mfaRepository.deleteMfaOf(ex, user);
      }
      await auditService.record(
        ex,
        source,
        'user.passkey_removed',
        { type: 'user', id: user.user_id },
        { passkey_id: passkeyId, name: row.name },
      );
      return row;
    });
    return passkeyToDto(removed);
  },

  /** The options of navigator.credentials.get() for the second step of the user's sign-in (409 without a passkey). */
  async authenticationOptions(db: Db, ceremony: Ceremony, user: UserKey) {
    const passkeys = await passkeysRepository.list(db.direct, user);
    if (passkeys.length === 0) {
      throw errors.conflict('You have no passkey: sign in with a code.', { user_id: user.user_id });
    }
    const options = await generateAuthenticationOptions({
      rpID: ceremony.rp.id,
      allowCredentials: passkeys.map(descriptorOf),
      timeout: TIMEOUT_MS,
      userVerification: 'preferred',
    });
    await keepChallenge(db, ceremony, 'AUTHENTICATION', options.challenge);
    return requestOptions(options, ceremony.rp);
  },

  /**
   * The second step of a sign-in with a passkey: the assertion must answer the session's challenge (taken now,
   * whatever the outcome), with one of the user's passkeys, on PUBLIC_URL's origin. Any failure is INVALID_PASSKEY
   * and counts as a wrong code does (throttled per user and per address).
   */
  async authenticate(
    db: Db,
    ceremony: Ceremony,
    user: UserKey,
    credential: AuthenticationResponseJSON,
    ip: string,
  ): Promise<{ used: 'PASSKEY'; recovery_codes_left: number }> {
    const tried = await secondStepAttempt(db, user.user_id, ip, errors.invalidPasskey);
    const challenge = await takeChallenge(db, ceremony, 'AUTHENTICATION');
    const passkey = await passkeysRepository.findByCredential(db.direct, user, credential.id);
    if (challenge === null || !passkey) throw await tried.refused();
    const verified = await verifyAuthenticationResponse({
      response: credential,
      expectedChallenge: challenge,
      expectedOrigin: ceremony.rp.origin,
      expectedRPID: ceremony.rp.id,
      credential: {
        id: passkey.credential_id,
        publicKey: isoBase64URL.toBuffer(passkey.public_key),
        counter: passkey.counter,
        transports: stringsOf(passkey.transports),
      },
      requireUserVerification: false,
    }).catch(() => null);
    if (!verified?.verified) throw await tried.refused();
    if (!(await passkeysRepository.recordUse(db.direct, passkey, verified.authenticationInfo.newCounter, nowMicros())))
      throw await tried.refused();
    await tried.succeeded();
    return { used: 'PASSKEY', recovery_codes_left: await mfaRepository.recoveryCodesLeft(db.direct, user) };
  },
};
