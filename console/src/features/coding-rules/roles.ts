/**
 * Whether the session's scopes may read and preview the account's coding rules (accounting.record.review or
 * .admin). The server decides on every request; this only spares others a screen that would answer 403.
 */
export function canSeeRules(scopes: readonly string[]): boolean {
  return scopes.includes('accounting.record.review') || scopes.includes('accounting.record.admin');
}

/** Whether they may save, delete and apply rules (accounting.record.admin). */
export function canManageRules(scopes: readonly string[]): boolean {
  return scopes.includes('accounting.record.admin');
}
