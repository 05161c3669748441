import { parseArgs } from 'node:util';
import { isAppError } from '../errors.js';
import { isScope, splitScopes, type Scope } from '../modules/auth/scopes.js';
import { ACCOUNT_ID_PATTERN } from '../modules/auth/auth.service.js';

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

/** `--scopes "a b,c"`: the scopes, each known, at least one. */
export function parseScopeList(text: string): Scope[] {
  const scopes = splitScopes(text);
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0) throw new CliUsageError('--scopes: give at least one scope');
  if (unknown.length > 0) throw new CliUsageError(`--scopes: unknown scope(s): ${unknown.join(', ')}`);
  return [...new Set(scopes.filter(isScope))];
}

/** `--account <id>`: required, in the account id's form. */
export function parseAccount(text: string | undefined): string {
  if (!text) throw new CliUsageError('--account is required');
  if (!ACCOUNT_ID_PATTERN.test(text)) {
    throw new CliUsageError('--account: 1 to 64 characters: letters, digits, "_", "-", "." (not first)');
  }
  return text;
}

/** An API client's `--name`: at most 100 characters once trimmed ('' when not given). */
export function parseClientName(text: string | undefined): string {
  const name = (text ?? '').trim();
  if (name.length > 100) throw new CliUsageError('--name: at most 100 characters');
  return name;
}

/** `--name N`: a whole number, or the default. */
export function parseCount(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) throw new CliUsageError(`--${name} must be a whole number`);
  return Number(text);
}

/** The one positional argument of a subcommand (`svc apps disable <app_id>`): exactly one, named `what`. */
export function onePositional(rest: string[], what: string): string {
  const { positionals } = parseArgs({ args: rest, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new CliUsageError(`give exactly one ${what}`);
  return positionals[0]!;
}

/** The service's refusals (a malformed or taken id, an unknown one) are the operator's mistakes: exit 2. */
export async function asUsage<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isAppError(error) && error.status < 500) throw new CliUsageError(error.message);
    throw error;
  }
}
