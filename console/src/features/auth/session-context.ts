import type { ConsoleUser } from '@svc/client';
import { createContext, useContext } from 'react';

export const CurrentUserContext = createContext<ConsoleUser | null>(null);

/** The signed-in user; only inside <RequireSession>. */
export function useCurrentUser(): ConsoleUser {
  const user = useContext(CurrentUserContext);
  if (!user) throw new Error('useCurrentUser outside <RequireSession>');
  return user;
}

/**
 * What the console offers follows the session answer's scopes (useSessionScopes), never the role's name: the scopes
 * are what the server checks on every request, so a control is shown exactly when its request would be allowed
 * (by scope; the record's own state is the server's to say too: allowed_moves, coding.editable).
 */
const any = (scopes: readonly string[], wanted: readonly string[]) => wanted.some((scope) => scopes.includes(scope));

/** Whether the session may review: code, split and merge, move records (accounting.record.review or .admin). */
export function canReview(scopes: readonly string[]): boolean {
  return any(scopes, ['accounting.record.review', 'accounting.record.admin']);
}

/** Whether the session may add, rename, disable and enable field values (field_values.write). */
export function canEditValues(scopes: readonly string[]): boolean {
  return scopes.includes('field_values.write');
}

/** Whether the session may create, change and delete fields, and delete values (fields.write). */
export function canManageFields(scopes: readonly string[]): boolean {
  return scopes.includes('fields.write');
}

/** Whether the session may manage the account's API clients, users and connected apps (account.admin). */
export function canManageClients(scopes: readonly string[]): boolean {
  return scopes.includes('account.admin');
}

/** Whether the session may connect, disconnect and reactivate integrations (accounting.integration.write). */
export function canManageIntegrations(scopes: readonly string[]): boolean {
  return scopes.includes('accounting.integration.write');
}

/** Whether the session may read the audit log (audit.read). */
export function canReadAudit(scopes: readonly string[]): boolean {
  return scopes.includes('audit.read');
}

/**
 * Whether the session's scopes let it attach and remove receipts (the upload route's: accounting.record.admin or
 * accounting.record.review).
 */
export function canAttachReceipts(scopes: readonly string[]): boolean {
  return any(scopes, ['accounting.record.admin', 'accounting.record.review']);
}
