/**
 * The webhooks module's tables (migration 0010). Times are microseconds since the epoch; docs/webhooks.md says
 * what each column is for.
 */

/** The last `seq` handed out to the account's events; its row is locked by each emitting transaction. */
export interface AccountEventCountersTable {
  account_id: string;
  last_seq: number;
}

/** One event of an account: the feed's item and the webhooks' outbox row. */
export interface AccountEventsTable {
  account_id: string;
  /** 1, 2, 3… per account, in commit order */
  seq: number;
  event_id: string;
  type: string;
  occurred_at: number;
  /** the event's `data`, as JSON text */
  data_json: string;
}

export const ENDPOINT_STATUSES = ['ENABLED', 'DISABLED'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export interface WebhookEndpointsTable {
  account_id: string;
  endpoint_id: string;
  url: string;
  description: string | null;
  /** JSON array of the event types delivered */
  event_types_json: string;
  status: EndpointStatus;
  /** why it is DISABLED (the dispatcher's words, or who disabled it); null while ENABLED */
  disabled_reason: string | null;
  disabled_at: number | null;
  /** whsec_… */
  secret: string;
  /** the secret before the last rotation, valid for signing until previous_secret_expires_at */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  /** the account's events up to this seq have been made into deliveries (or skipped: not subscribed) */
  fanned_seq: number;
  /** when the attempts began to fail without a success since; null after a success */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * PENDING: to be attempted at next_attempt_at (a claimed delivery too: its lease is next_attempt_at); PAUSED: its
 * endpoint is disabled; DELIVERED: an attempt got a 2xx; FAILED: retried for the whole retry window, given up.
 */
export type DeliveryStatus = 'PENDING' | 'PAUSED' | 'DELIVERED' | 'FAILED';

export interface WebhookDeliveriesTable {
  account_id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  status: DeliveryStatus;
  /** attempts since the delivery was made or last redelivered: the backoff's exponent */
  attempts: number;
  next_attempt_at: number;
  /** the retry window starts here (when the delivery was made, or redelivered) */
  retry_from: number;
  /** the claim of the process attempting it; its result is written only under the same token */
  lease_token: string | null;
  /** the dispatcher that holds the claim (webhook_dispatchers), so that its claims are taken over if it dies */
  claimed_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptsTable {
  account_id: string;
  attempt_id: string;
  endpoint_id: string;
  event_id: string;
  attempted_at: number;
  /** the HTTP status answered; null when none was (refused target, timeout, connection error) */
  status_code: number | null;
  latency_ms: number;
  /** the answer's first bytes */
  response_excerpt: string | null;
  /** what went wrong when no status came back, or why a status is a failure */
  error: string | null;
  succeeded: number;
}

/** A process that dispatches deliveries, and its heartbeat (migration 0020; webhooks.liveness.ts). */
export interface WebhookDispatchersTable {
  dispatcher_id: string;
  started_at: number;
  /** the beater's clock at its last beat: for people (others judge by `beats` moving, on their own clocks) */
  beat_at: number;
  /** grows by one at every beat */
  beats: number;
}

declare module '../../db/database.js' {
  interface Database {
    account_event_counters: AccountEventCountersTable;
    account_events: AccountEventsTable;
    webhook_endpoints: WebhookEndpointsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
    webhook_dispatchers: WebhookDispatchersTable;
  }
}
