/** A user's TOTP authenticator (RFC 6238): one per user. */
export interface UserTotpTable {
  account_id: string;
  user_id: string;
  /** base32, 160 bits; an authenticator app holds the same */
  secret: string;
  /** null while enrolling: the secret is shown, no code has been checked against it yet */
  confirmed_at: number | null;
  /** the last 30-second time step whose code was accepted: a code is accepted once */
  last_used_step: number | null;
  created_at: number;
}

/** Single-use codes for a lost authenticator. */
export interface UserRecoveryCodesTable {
  account_id: string;
  user_id: string;
  /** sha256 of the code as normalised (lower case, no separators), hex; codes carry 80 random bits */
  code_hash: string;
  created_at: number;
  used_at: number | null;
}

/** A user's passkey or security key (WebAuthn): its credential's public key, never a secret. */
export interface UserPasskeysTable {
  account_id: string;
  user_id: string;
  /** pky_…: the passkey in the API */
  passkey_id: string;
  /** the credential id (base64url) the browser names in an assertion; unique across the service */
  credential_id: string;
  /** the credential's public key as the authenticator gave it (COSE), base64url */
  public_key: string;
  /** the signature counter the authenticator last reported (0 for those that keep none) */
  counter: number;
  /** JSON array of the transports the browser reported (usb, nfc, ble, internal, hybrid…), a hint for the next sign-in */
  transports: string;
  /** the name the user gave it ("YubiKey 5", "Work laptop") */
  name: string;
  created_at: number;
  last_used_at: number | null;
}

/** What an account admin sets for the account's console users. */
export interface AccountUserSettingsTable {
  account_id: string;
  /** 1: every user of the account must use two-step sign-in (enrol at their next sign-in) */
  mfa_required: number;
  updated_at: number;
  /** the admin who last changed it */
  updated_by: string | null;
}

declare module '../../db/database.js' {
  interface Database {
    user_totp: UserTotpTable;
    user_recovery_codes: UserRecoveryCodesTable;
    user_passkeys: UserPasskeysTable;
    account_user_settings: AccountUserSettingsTable;
  }
}
