import type { ApiClientCreateRequest } from '@svc/client';

export type Scope = ApiClientCreateRequest['scopes'][number];

/**
 * The scopes an API client can be given, in words, grouped as the API reference groups them. Only an account admin
 * reaches this screen, and that role holds every scope, so every scope may be granted (the service refuses to
 * grant one the caller lacks all the same).
 */
export const SCOPE_GROUPS = [
  {
    title: 'Fields and values',
    scopes: [
      { scope: 'fields.read', words: 'View custom fields' },
      { scope: 'fields.write', words: 'View and manage custom fields; delete field values' },
      { scope: 'field_values.read', words: 'View custom field values' },
      { scope: 'field_values.write', words: 'View and manage custom field values' },
    ],
  },
  {
    title: 'Accounting records',
    scopes: [
      { scope: 'accounting.record.read', words: 'View accounting records' },
      { scope: 'accounting.record.write', words: 'View accounting records and report export results' },
      { scope: 'accounting.record.review', words: 'Code records, move them through review, read their history' },
      { scope: 'accounting.record.admin', words: 'Create records, move them through review, set required coding' },
    ],
  },
  {
    title: 'Integration, webhooks and events',
    scopes: [
      { scope: 'accounting.integration.read', words: 'View the accounting integration' },
      { scope: 'accounting.integration.write', words: 'View and manage the accounting integration' },
      { scope: 'webhooks.read', words: 'View webhook endpoints and their deliveries; read the event feed' },
      {
        scope: 'webhooks.write',
        words: 'Manage webhook endpoints: create, change, disable, delete, rotate, redeliver',
      },
      { scope: 'events.read', words: "Read the account's event feed" },
    ],
  },
  {
    title: 'Account',
    scopes: [
      { scope: 'account.admin', words: "Manage the account's API clients (create, list, revoke)" },
      { scope: 'audit.read', words: "Read the account's audit log of administrative actions" },
    ],
  },
] as const satisfies readonly { title: string; scopes: readonly { scope: Scope; words: string }[] }[];

// Every scope of the API is offered: a scope added to the API and not here fails the type check.
type Listed = (typeof SCOPE_GROUPS)[number]['scopes'][number]['scope'];
export const everyScopeListed: Exclude<Scope, Listed> extends never ? true : false = true;
