import { auditApi } from './audit.js';
import { codingRulesApi } from './coding-rules-api.js';
import { fieldsApi, fieldValuesApi } from './fields-api.js';
import { accountingRecordsApi, reviewApi } from './records-api.js';
import { eventsApi, webhooksApi } from './webhooks-api.js';
import { paginate } from './pages.js';
import { sandboxApi } from './sandbox.js';
import { suggestionsApi } from './suggestions-api.js';
import { draftsApi } from './drafts-api.js';
import { savedViewsApi } from './saved-views-api.js';
import { receiptsApi } from './receipts-api.js';
import { consoleUsersApi, sessionApi } from './session.js';
import {
  Transport,
  newIdempotencyKey,
  writer,
  type RequestOptions,
  type SvcClientOptions,
  type WriteOptions,
} from './transport.js';
import type {
  ApiClientCreateRequest,
  ApiClientCredentials,
  ApiClientList,
  ApiClientRotateSecretRequest,
  ApiClientRotatedSecret,
  ApiClient,
  ApiClientUpdateRequest,
  ConnectedAppList,
  ConsentAnswer,
  ConsentDecision,
  ConsentQuery,
  ConsentRequest,
  CreateIntegrationRequest,
  Integration,
  IntegrationListQuery,
  IntegrationPage,
} from './types.js';

export {
  SvcAbortError,
  SvcApiError,
  SvcAuthError,
  SvcConflictError,
  SvcIdempotencyError,
  SvcNotFoundError,
  SvcRateLimitError,
  SvcTimeoutError,
  SvcUnavailableError,
  SvcValidationError,
  type ApiErrorCode,
  type ErrorCode,
  type ValidationProblem,
} from './errors.js';
export type { ExportedFile } from './export-file.js';
export { BATCH_LIMIT, SvcBatchError, type BatchChunk } from './batches.js';
export {
  SvcOAuthError,
  authorizationRequest,
  exchangeCode,
  pkcePair,
  readRedirect,
  type AuthorizationRequestOptions,
  type TokenRequestOptions,
  type TokenSet,
} from './oauth.js';
export type {
  RequestHookInfo,
  RequestOptions,
  ResponseHookInfo,
  RetryHookInfo,
  SvcClientOptions,
  WriteOptions,
} from './options.js';
export type * from './types.js';
export type * from './sandbox.js';

const enc = encodeURIComponent;
type ListQuery<Q> = Omit<Q, 'cursor'>;

/**
 * The svc API client. `new SvcClient({ baseUrl, clientId, clientSecret })` fetches and refreshes tokens
 * itself; `new SvcClient({ baseUrl, token })` uses a given token. Reads, and writes (which always carry an
 * Idempotency-Key), are retried with exponential backoff and jitter on 429, 5xx and network errors; the rate
 * limits the server reports are shared by every call of the client (new calls wait while a budget is spent).
 * `onRequest`, `onResponse` and `onRetry` see each attempt; `fetch`, `sleep`, `now` and `random` can be replaced.
 */
export class SvcClient {
  readonly #http: Transport;
  readonly fields: ReturnType<typeof fieldsApi>;
  readonly fieldValues: ReturnType<typeof fieldValuesApi>;
  readonly accountingRecords: ReturnType<typeof accountingRecordsApi>;
  /**
   * The account's webhook endpoints (docs/webhooks.md): reads need webhooks.read or webhooks.write, everything else
   * webhooks.write. The secret of a new endpoint is in create's answer (and at `secrets`); a rotation answers the
   * new one.
   */
  readonly webhooks: ReturnType<typeof webhooksApi>;
  /**
   * The account's event feed (`GET /v1/events`): the events webhooks deliver, with the same ids, in commit order.
   * The feed has no end: keep a page's `next_cursor` and ask again with it (and the same `type` filter) later.
   */
  readonly events: ReturnType<typeof eventsApi>;
  /** The internal review workflow (accounting.record.review, or .admin for records' creation and required coding). */
  readonly review: ReturnType<typeof reviewApi>;
  /** The account's coding rules (docs/coding-rules.md): review scope to read and preview, admin to save and apply. */
  readonly codingRules: ReturnType<typeof codingRulesApi>;
  /** Coding suggestions learned from the account's approved records (docs/suggestions.md): review scope. */
  readonly suggestions: ReturnType<typeof suggestionsApi>;
  /** The signed-in console user's drafts of records' coding (session clients only: docs/console.md). */
  readonly drafts: ReturnType<typeof draftsApi>;
  /** The signed-in console user's saved views of the review queue (session clients only: docs/console.md). */
  readonly savedViews: ReturnType<typeof savedViewsApi>;
  /** Receipts uploaded to records and their signed links (docs/receipts.md). */
  readonly receipts: ReturnType<typeof receiptsApi>;

  constructor(options: SvcClientOptions) {
    this.#http = new Transport(options);
    this.fields = fieldsApi(this.#http);
    this.fieldValues = fieldValuesApi(this.#http);
    this.accountingRecords = accountingRecordsApi(this.#http);
    this.webhooks = webhooksApi(this.#http);
    this.events = eventsApi(this.#http);
    this.review = reviewApi(this.#http);
    this.codingRules = codingRulesApi(this.#http);
    this.suggestions = suggestionsApi(this.#http);
    this.drafts = draftsApi(this.#http);
    this.savedViews = savedViewsApi(this.#http);
    this.receipts = receiptsApi(this.#http);
  }

  /** Sandbox servers only (docs/sandbox.md), with the operator's token: accounts, scenarios, faults. */
  get sandbox(): ReturnType<typeof sandboxApi> {
    return sandboxApi(this.#http);
  }

  /** The account's audit log of administrative actions (scope audit.read), newest first: read-only. */
  get audit(): ReturnType<typeof auditApi> {
    return auditApi(this.#http);
  }

  /**
   * The account's integration with an ERP vendor (the reference's operations, scope accounting.integration.write):
   * create is idempotent (the same vendor and vendor_account_id answer the ACTIVE integration), and an account
   * has at most one ACTIVE integration (409 ACTIVE_INTEGRATION_EXISTS or VENDOR_ACCOUNT_ID_MISMATCH otherwise).
   * `list` is svc's own: every integration of the account, current and past.
   */
  readonly integrations = {
    create: (input: CreateIntegrationRequest, options?: WriteOptions) =>
      this.#write<Integration>('POST', '/v3/accounting/integration', input, options),
    /** ACTIVE → DISABLED (409 INTEGRATION_NOT_ACTIVE when it is not ACTIVE). */
    disconnect: (integrationId: string, options?: WriteOptions) =>
      this.#write<Integration>(
        'POST',
        `/v3/accounting/integration/${enc(integrationId)}/disconnect`,
        undefined,
        options,
      ),
    /** DISABLED → ACTIVE (409 ACTIVE_INTEGRATION_EXISTS while the account has an ACTIVE one). */
    reactivate: (integrationId: string, options?: WriteOptions) =>
      this.#write<Integration>(
        'POST',
        `/v3/accounting/integration/${enc(integrationId)}/reactivate`,
        undefined,
        options,
      ),
    list: (query: IntegrationListQuery = {}, options?: RequestOptions) =>
      this.#http.request<IntegrationPage>({ method: 'GET', path: '/internal/v1/integrations', query, options }),
    listAll: (query: ListQuery<IntegrationListQuery> = {}, options?: RequestOptions) =>
      paginate((q: IntegrationListQuery) => this.integrations.list(q, options), query),
  };

  /**
   * The console's session (`session: true` clients in a browser): sign in with an email and password (and a code,
   * for two-step sign-in), read the signed-in user, sign out, set a password with a one-time link, set up two-step
   * sign-in. The CSRF token of the session is kept by the client and sent with every write.
   */
  get session(): ReturnType<typeof sessionApi> {
    return sessionApi(this.#http);
  }

  /**
   * An account admin's side of the console's users (scope account.admin; a signed-in console session only): the
   * account's users, a reset of one's two-step sign-in, and the account's requirement of it.
   */
  get users(): ReturnType<typeof consoleUsersApi> {
    return consoleUsersApi(this.#http);
  }

  /** The account's API clients (scope account.admin): the secret of a new one is in create's answer only. */
  readonly clients = {
    list: (options?: RequestOptions) =>
      this.#http.request<ApiClientList>({ method: 'GET', path: '/internal/v1/clients', options }),
    /** Takes no Idempotency-Key (the answer holds the secret): a write that is not retried. */
    create: (input: ApiClientCreateRequest, options?: RequestOptions) =>
      this.#http.request<ApiClientCredentials>({ method: 'POST', path: '/internal/v1/clients', body: input, options }),
    /**
     * A new secret (in this answer only); the previous one keeps working `overlap_seconds` (default a day). Not
     * retried: the answer holds the secret, and the operation takes no Idempotency-Key.
     */
    rotateSecret: (clientId: string, input: ApiClientRotateSecretRequest = {}, options?: RequestOptions) =>
      this.#http.request<ApiClientRotatedSecret>({
        method: 'POST',
        path: `/internal/v1/clients/${enc(clientId)}/rotate-secret`,
        body: input,
        options,
      }),
    /** Replaces the client's scopes; one taken away leaves its live tokens at once. Retried with one key. */
    update: (clientId: string, input: ApiClientUpdateRequest, options?: WriteOptions) =>
      this.#http.request<ApiClient>({
        method: 'PATCH',
        path: `/internal/v1/clients/${enc(clientId)}`,
        body: input,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    revoke: (clientId: string, options?: WriteOptions) =>
      this.#http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/internal/v1/clients/${enc(clientId)}`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };

  /**
   * The internal review workflow (scope accounting.record.review, or accounting.record.admin): code, split and
   * merge lines, move records through review one at a time or up to 1000 at once, read a record's history, find
   * records to review, and the account's required coding.
   */
  /** An account admin's side of partner apps (in the console): consent to an authorization request, connected apps. */
  readonly partnerApps = {
    /** What the consent screen shows for the query /oauth2/authorize received. */
    describeConsent: (query: ConsentQuery, options?: RequestOptions) =>
      this.#http.request<ConsentRequest>({ method: 'GET', path: '/internal/v1/oauth/consent', query, options }),
    /** Approve or deny; answers where the browser goes next. Not retried (a code is answered once). */
    decideConsent: (decision: ConsentDecision, options?: RequestOptions) =>
      this.#http.request<ConsentAnswer>({
        method: 'POST',
        path: '/internal/v1/oauth/consent',
        body: decision,
        options,
      }),
    listConnected: (options?: RequestOptions) =>
      this.#http.request<ConnectedAppList>({ method: 'GET', path: '/internal/v1/connected-apps', options }),
    /** Its tokens stop working on their next request. */
    revoke: (appId: string, options?: WriteOptions) =>
      this.#http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/internal/v1/connected-apps/${enc(appId)}`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };

  #write<T>(method: 'POST' | 'PUT', path: string, body: unknown, options?: WriteOptions): Promise<T> {
    return writer(this.#http)<T>(method, path, body, options);
  }
}
