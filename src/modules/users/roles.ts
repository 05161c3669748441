import type { Scope } from '../auth/auth.service.js';

/**
 * Console roles, named as the spec's User object names them where one fits; READ_ONLY is the service's own.
 * A role is a set of the API's scopes: a signed-in user may call exactly the operations an API client with
 * those scopes may (the same check, on every request), and no other.
 */
export const ROLES = ['ACCOUNT_ADMIN', 'BOOKKEEPER', 'READ_ONLY'] as const;
export type Role = (typeof ROLES)[number];

const READ: readonly Scope[] = [
  'fields.read',
  'field_values.read',
  'accounting.record.read',
  'accounting.integration.read',
];

export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  ACCOUNT_ADMIN: [
    ...READ,
    'fields.write',
    'field_values.write',
    'accounting.record.write',
    'accounting.record.review',
    'accounting.record.admin',
    'account.admin',
    'accounting.integration.write',
    'webhooks.read',
    'webhooks.write',
    'events.read',
    'audit.read',
  ],
  // Reviews, codes and approves records and keeps the values they are coded with; not the fields themselves,
  // not export results (an integration reports those), not records' creation or required coding.
  BOOKKEEPER: [...READ, 'field_values.write', 'accounting.record.review'],
  READ_ONLY: READ,
};
