import { useSession } from '../auth/api/session';

/**
 * The scopes of the export route (exports.routes.ts): any one of them lets a caller export. Every console role
 * reads records today; the page and its link still follow the session's scopes, so a role without them sees neither.
 */
export const EXPORT_SCOPES: readonly string[] = ['accounting.record.read', 'accounting.record.write'];

/** Whether the signed-in session may export (the server decides on every request; this spares a 403). */
export function useCanExport(): boolean {
  const scopes = useSession().data?.scopes ?? [];
  return EXPORT_SCOPES.some((scope) => scopes.includes(scope));
}

/** Whether the session may change the export mapping (accounting.record.admin: an admin's). */
export function useCanSetMapping(): boolean {
  return (useSession().data?.scopes ?? []).includes('accounting.record.admin');
}
