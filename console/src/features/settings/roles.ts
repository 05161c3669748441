import type { ConsoleUser } from '@svc/client';

/**
 * Whether the role may read the account's settings (accounting.record.review or .admin). The server decides on
 * every request; this only spares other roles a screen that would answer 403.
 */
export function canSeeSettings(user: ConsoleUser): boolean {
  return user.role === 'ACCOUNT_ADMIN' || user.role === 'BOOKKEEPER';
}

/** Whether the role may change them (accounting.record.admin: an admin's). */
export function canManageSettings(user: ConsoleUser): boolean {
  return user.role === 'ACCOUNT_ADMIN';
}
