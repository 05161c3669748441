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
 * Whether the user's role may review (code, approve, send back). The server decides on every request; this only
 * spares the user buttons that would answer 403.
 */
export function canReview(user: ConsoleUser): boolean {
  return user.role === 'ACCOUNT_ADMIN' || user.role === 'BOOKKEEPER';
}

/** Whether the role may add, rename, disable and enable field values (field_values.write). */
export function canEditValues(user: ConsoleUser): boolean {
  return user.role === 'ACCOUNT_ADMIN' || user.role === 'BOOKKEEPER';
}

/** Whether the role may create, change and delete fields, and delete values (fields.write). */
export function canManageFields(user: ConsoleUser): boolean {
  return user.role === 'ACCOUNT_ADMIN';
}

/** Whether the role may create, list and revoke the account's API clients (account.admin). */
export function canManageClients(user: ConsoleUser): boolean {
  return user.role === 'ACCOUNT_ADMIN';
}

/**
 * Whether the session's scopes let it attach and remove receipts (the upload route's: accounting.record.admin or
 * accounting.record.review). The session answer carries the scopes; the server checks them again on every request.
 */
export function canAttachReceipts(scopes: readonly string[]): boolean {
  return scopes.includes('accounting.record.admin') || scopes.includes('accounting.record.review');
}
