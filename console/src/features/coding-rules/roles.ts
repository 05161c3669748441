import type { ConsoleUser } from '@svc/client';

/**
 * Whether the role may read and preview the account's coding rules (accounting.record.review or .admin). The
 * server decides on every request; this only spares other roles a screen that would answer 403.
 */
export function canSeeRules(user: ConsoleUser): boolean {
  return user.role === 'ACCOUNT_ADMIN' || user.role === 'BOOKKEEPER';
}

/** Whether the role may save, delete and apply rules (accounting.record.admin: an admin's). */
export function canManageRules(user: ConsoleUser): boolean {
  return user.role === 'ACCOUNT_ADMIN';
}
