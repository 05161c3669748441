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
