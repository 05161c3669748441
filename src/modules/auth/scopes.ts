/** Every OAuth scope the service knows, with the words shown in the API reference. */
export const SCOPES = {
  'fields.read': 'View custom fields',
  'fields.write': 'View and manage custom fields; delete field values',
  'field_values.read': 'View custom field values',
  'field_values.write': 'View and manage custom field values',
  'accounting.record.read': 'View accounting records',
  'accounting.record.write': 'View accounting records and report export results',
  'accounting.integration.read': 'View accounting integration',
  'accounting.integration.write': 'View and manage accounting integration',
  'accounting.record.review': 'Internal: code accounting records, move them through review, read their history',
  'accounting.record.admin': 'Internal: create accounting records, move them through review, set required coding',
  'account.admin': "Internal: manage the account's API clients (create, list, revoke)",
  'webhooks.read': "View the account's webhook endpoints and their delivery log; read the event feed",
  'webhooks.write': 'View and manage webhook endpoints: create, change, disable, delete, rotate secrets, redeliver',
  'events.read': "Read the account's event feed",
  'audit.read': "Internal: read the account's audit log of administrative actions",
} as const;

export type Scope = keyof typeof SCOPES;

export const ALL_SCOPES: readonly Scope[] = Object.keys(SCOPES).filter(isScope);

export function isScope(value: string): value is Scope {
  return Object.prototype.hasOwnProperty.call(SCOPES, value);
}

/** "a b,c" → ["a", "b", "c"]: scopes may be separated by spaces or commas. */
export function splitScopes(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Scopes of the service's own operations (the console's, an operator's): never granted to a partner app. */
export const INTERNAL_SCOPES: readonly Scope[] = [
  'accounting.record.review',
  'accounting.record.admin',
  'account.admin',
  'audit.read',
];

/** What a partner app may be granted through the authorization code flow: every scope of the public API. */
export const PARTNER_SCOPES: readonly Scope[] = ALL_SCOPES.filter((scope) => !INTERNAL_SCOPES.includes(scope));
