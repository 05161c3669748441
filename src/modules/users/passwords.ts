import argon2 from 'argon2';
import type { PasswordHashCost } from '../../config.js';
import { errors } from '../../errors.js';
import { randomToken } from '../../lib/ids.js';

/**
 * The password policy (NIST SP 800-63B §3.1.1.2, docs/console.md): a password is the console's only factor until a
 * user enrols in two-step sign-in, and may stay so, so one minimum serves every user.
 * - at least PASSWORD_MIN characters (Unicode code points, after NFKC normalisation), at most PASSWORD_MAX;
 * - any printing character and spaces; no composition rule (no "one digit, one symbol");
 * - not guessable: zxcvbn-ts's estimate (common passwords, dictionaries, names, keyboard patterns, repeats,
 *   sequences, dates, the user's own email and account) must reach MIN_SCORE.
 */
export const PASSWORD_MIN = 15;
export const PASSWORD_MAX = 256;
/** zxcvbn's 3: "safely unguessable: moderate protection from an offline slow-hash scenario" (10^8 guesses and more). */
export const MIN_SCORE = 3;
/** The library's defaults, above OWASP's argon2id floor (19 MiB, 2 passes). */
export const DEFAULT_HASH_COST: PasswordHashCost = { memoryKib: 65_536, passes: 3 };

let hashOptions = optionsOf(DEFAULT_HASH_COST);
function optionsOf(cost: PasswordHashCost) {
  return { type: argon2.argon2id, memoryCost: cost.memoryKib, timeCost: cost.passes, parallelism: 4 } as const;
}

/** Set once from the config when the app is built; a stored hash of another cost is rehashed at its next sign-in. */
export function configurePasswordHashing(cost: PasswordHashCost): void {
  const next = optionsOf(cost);
  if (next.memoryCost === hashOptions.memoryCost && next.timeCost === hashOptions.timeCost) return;
  hashOptions = next;
  decoyHash = null;
}

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, hashOptions);
export const hashNeedsUpdate = (hash: string): boolean => argon2.needsRehash(hash, hashOptions);

/** Verified against when the email is unknown, so that an unknown email takes as long as a wrong password. */
let decoyHash: Promise<string> | null = null;
export const decoy = (): Promise<string> => (decoyHash ??= argon2.hash(randomToken(16), hashOptions));

/** A password as it is hashed and compared: NFKC, so that the same characters typed another way are the same password. */
export const normalPassword = (password: string): string => password.normalize('NFKC');

/** What the estimator should count as known of the user: their email, its parts, their account, the service. */
function userInputs(email: string, accountId: string): string[] {
  const [local = '', domain = ''] = email.split('@');
  return [email, local, ...local.split(/[._+-]+/), domain, ...domain.split('.'), accountId, 'svc', 'console'].filter(
    (word) => word.length >= 3,
  );
}

const refuse = (message: string) => errors.invalidField('/password', message);

/**
 * Refuses a password the policy does not accept (400 INVALID_REQUEST at /password, with what to do); answers it
 * normalised otherwise.
 */
export async function acceptablePassword(
  password: string,
  user: { email: string; account_id: string },
): Promise<string> {
  const normal = normalPassword(password);
  const length = [...normal].length;
  if (length < PASSWORD_MIN)
    throw refuse(
      `must be at least ${PASSWORD_MIN} characters: a few unrelated words make a long password that is easy to remember`,
    );
  if (length > PASSWORD_MAX) throw refuse(`must be at most ${PASSWORD_MAX} characters`);
  if (/\p{Cc}/u.test(normal))
    throw refuse('must not contain control characters (letters, digits, symbols and spaces are all fine)');
  if (normal.trim().toLowerCase() === user.email) throw refuse('must not be your email');
  const { estimate } = await import('./password-strength.js');
  const result = estimate(normal, userInputs(user.email, user.account_id));
  if (result.score < MIN_SCORE) {
    const { warning, suggestions } = result.feedback;
    const advice = [warning, ...suggestions].filter((s): s is string => Boolean(s));
    if (advice.length === 0) advice.push('Add more words that are less common.');
    throw refuse(`is too easy to guess. ${advice.join(' ')}`);
  }
  return normal;
}
