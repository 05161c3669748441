import type { RequestOptions, Transport } from './transport.js';

/**
 * The sandbox's controls (docs/sandbox.md), on a server started with SANDBOX=true only (elsewhere every one is
 * 404). They take the sandbox operator's token, not an API client's: `new SvcClient({ baseUrl, token:
 * SANDBOX_ADMIN_TOKEN }).sandbox`. Types written by hand: the server's OpenAPI document lists these operations
 * only in sandbox mode, so the generated types.ts does not have them.
 */

export type SandboxScenario =
  'empty' | 'review-states' | 'month-of-card-spend' | 'export-failures' | 'chart-of-accounts-10k' | 'bills-due';

export interface SandboxAccountCreateRequest {
  /** Default `empty`. */
  scenario?: SandboxScenario;
  /** 0 to 2^32 − 1: the same seed makes the same data (default: any, named in the answer). */
  seed?: number;
}

export interface SandboxAccount {
  account_id: string;
  /** A client of the account with every scope: use these as `new SvcClient({ baseUrl, clientId, clientSecret })`. */
  client_id: string;
  client_secret: string;
  scopes: string[];
  scenario: {
    name: SandboxScenario;
    seed: number;
    fields: { svc_id: string; name: string; remote_id: string | null; values: number }[];
    records: number;
  };
}

export interface SandboxAccountReset {
  account_id: string;
  scenario: SandboxAccount['scenario'];
}

export type SandboxFaultKind = '429' | '500' | '503' | 'delay' | 'drop_after_commit';

export interface SandboxFaultRequest {
  kind: SandboxFaultKind;
  /** The client's next N requests (default 1)… */
  count?: number;
  /** …or each of its requests with this probability, until cleared. */
  fraction?: number;
  /** delay: how long each affected request waits (default 1000). */
  delay_ms?: number;
  /** 429 and 503: the Retry-After seconds (default 1). */
  retry_after?: number;
  /** Only requests with this method (default any). */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Only requests of this route, its path as /openapi.json writes it: `/v3/accounting/records/{record_id}`. */
  route?: string;
}

export interface SandboxFault {
  client_id: string;
  kind: SandboxFaultKind;
  count: number | null;
  fraction: number | null;
  delay_ms: number;
  retry_after: number;
  method: string | null;
  route: string | null;
}

/** `POST /sandbox/v1/accounts/{account_id}/events`: an event of the account on demand. */
export interface SandboxFireEventRequest {
  type:
    | 'accounting_record.ready_for_export'
    | 'accounting_record.exported'
    | 'accounting_record.export_failed'
    | 'accounting_record.reopened'
    | 'field_values.changed'
    | 'integration.connected'
    | 'integration.disconnected';
  /** The record, field or integration it names (it must exist in the account). */
  object_id: string;
  error_message?: string;
  operation?: 'CREATED' | 'UPDATED' | 'DELETED';
  svc_ids?: string[];
}

export interface SandboxFiredEvents {
  events: { id: string; type: string }[];
}

/** `POST /sandbox/v1/accounts/{account_id}/advance-time`: what moved. */
export interface SandboxAdvancedTime {
  deliveries: number;
  endpoints: number;
}

const enc = encodeURIComponent;

/**
 * `client.sandbox`. Nothing here is retried: a lost answer to createAccount would make a second account, and
 * these operations take no Idempotency-Key.
 */
export function sandboxApi(http: Transport) {
  return {
    /** A new account with a client of every scope and its credentials, seeded with the scenario. */
    createAccount: (input: SandboxAccountCreateRequest = {}, options?: RequestOptions) =>
      http.request<SandboxAccount>({ method: 'POST', path: '/sandbox/v1/accounts', body: input, options }),
    /** Revokes the account's clients (their tokens stop at once). */
    deleteAccount: (accountId: string, options?: RequestOptions) =>
      http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/sandbox/v1/accounts/${enc(accountId)}`,
        options,
      }),
    /** Empties the account and lays the scenario into it (default empty); its clients and credentials stay. */
    resetAccount: (accountId: string, input: SandboxAccountCreateRequest = {}, options?: RequestOptions) =>
      http.request<SandboxAccountReset>({
        method: 'POST',
        path: `/sandbox/v1/accounts/${enc(accountId)}/reset`,
        body: input,
        options,
      }),
    /** Announces an event of the account: the feed lists it and its webhook endpoints receive it. */
    fireEvent: (accountId: string, input: SandboxFireEventRequest, options?: RequestOptions) =>
      http.request<SandboxFiredEvents>({
        method: 'POST',
        path: `/sandbox/v1/accounts/${enc(accountId)}/events`,
        body: input,
        options,
      }),
    /** Lets `seconds` pass for the account's webhook schedules: retries come due, give-ups and disabling arrive. */
    advanceTime: (accountId: string, seconds: number, options?: RequestOptions) =>
      http.request<SandboxAdvancedTime>({
        method: 'POST',
        path: `/sandbox/v1/accounts/${enc(accountId)}/advance-time`,
        body: { seconds },
        options,
      }),
    /**
     * Makes that client's next requests fail as asked, all of them or those of one method and route; replaces its
     * fault with the same method and route; other clients are not affected.
     */
    setFault: (clientId: string, fault: SandboxFaultRequest, options?: RequestOptions) =>
      http.request<SandboxFault>({
        method: 'POST',
        path: `/sandbox/v1/clients/${enc(clientId)}/faults`,
        body: fault,
        options,
      }),
    /** The client's faults, the narrowest first (the one a request meets is the first that selects it). */
    listFaults: (clientId: string, options?: RequestOptions) =>
      http.request<{ items: SandboxFault[] }>({
        method: 'GET',
        path: `/sandbox/v1/clients/${enc(clientId)}/faults`,
        options,
      }),
    /** Expires the client's access tokens now (or only `accessToken`): its next request answers 401 and it fetches another. */
    expireTokens: (clientId: string, accessToken?: string, options?: RequestOptions) =>
      http.request<{ expired: number }>({
        method: 'POST',
        path: `/sandbox/v1/clients/${enc(clientId)}/tokens/expire`,
        body: accessToken === undefined ? {} : { access_token: accessToken },
        options,
      }),
    /** Clears every fault of the client. */
    clearFault: (clientId: string, options?: RequestOptions) =>
      http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/sandbox/v1/clients/${enc(clientId)}/faults`,
        options,
      }),
  };
}
