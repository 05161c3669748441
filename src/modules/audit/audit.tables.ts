export const AUDIT_ACTIONS = [
  'api_client.created',
  'api_client.revoked',
  'api_client.secret_rotated',
  'api_client.scopes_changed',
  'api_client.renamed',
  'user.created',
  'user.disabled',
  'user.password_reset',
  'user.mfa_reset',
  'user.passkey_added',
  'user.passkey_removed',
  'account.settings_changed',
  'account.required_coding_changed',
  'coding_rule.created',
  'coding_rule.updated',
  'coding_rule.deleted',
  'coding_rule.applied',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'integration.created',
  'integration.disconnected',
  'integration.reactivated',
  'connected_app.authorized',
  'connected_app.revoked',
  'account.deleted',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGETS = [
  'api_client',
  'user',
  'account',
  'coding_rule',
  'webhook_endpoint',
  'integration',
  'connected_app',
] as const;
export type AuditTarget = (typeof AUDIT_TARGETS)[number];

export const AUDIT_ACTOR_TYPES = ['user', 'client', 'system'] as const;

/** One administrative action of an account (src/modules/audit/): append-only. */
export interface AuditEventsTable {
  account_id: string;
  event_id: string;
  /** microseconds */
  occurred_at: number;
  actor_type: string;
  actor_id: string;
  action: string;
  target_type: string;
  target_id: string;
  /** The client address of the request; null for the `svc` command and the service's own work. */
  address: string | null;
  request_id: string | null;
  /** JSON text: what the action did (never a secret). */
  details: string;
}

declare module '../../db/database.js' {
  interface Database {
    audit_events: AuditEventsTable;
  }
}
