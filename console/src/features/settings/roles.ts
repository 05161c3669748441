/**
 * Whether the session's scopes may read the account's settings (accounting.record.review or .admin). The server
 * decides on every request; this only spares others a screen that would answer 403.
 */
export function canSeeSettings(scopes: readonly string[]): boolean {
  return scopes.includes('accounting.record.review') || scopes.includes('accounting.record.admin');
}

/** Whether they may change them (accounting.record.admin). */
export function canManageSettings(scopes: readonly string[]): boolean {
  return scopes.includes('accounting.record.admin');
}
