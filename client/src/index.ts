import { inChunks } from './batches.js';
import { sandboxApi } from './sandbox.js';
import {
  Transport,
  newIdempotencyKey,
  type RequestOptions,
  type SvcClientOptions,
  type WriteOptions,
} from './transport.js';
import type {
  AccountingOverview,
  ApiClientCreateRequest,
  ApiClientCredentials,
  ApiClientList,
  ApiClientRotateSecretRequest,
  ApiClientRotatedSecret,
  ConnectedAppList,
  ConsentAnswer,
  ConsentDecision,
  ConsentQuery,
  ConsentRequest,
  ConsoleSession,
  ConsoleUser,
  CreateIntegrationRequest,
  Integration,
  IntegrationListQuery,
  IntegrationPage,
  SetPasswordRequest,
  SignInRequest,
  AccountingRecord,
  AccountingRecordPage,
  AccountingRecordQuery,
  ExportResult,
  ExportResultsResponse,
  Field,
  FieldCreate,
  FieldListQuery,
  FieldPage,
  FieldUpdate,
  FieldValue,
  FieldValueCreate,
  FieldValueDelete,
  FieldValueListQuery,
  FieldValuePage,
  FieldValueUpdate,
  BulkMoveRequest,
  BulkMoveResponse,
  CodeLinesRequest,
  FieldValueSearchQuery,
  MergeLinesRequest,
  RecordCreate,
  RecordHistoryPage,
  RecordHistoryQuery,
  RecordSearchPage,
  RecordSearchQuery,
  RecordWithSingleEntry,
  RequiredCoding,
  ReviewMoveRequest,
  SplitLineRequest,
  EventFeedPage,
  EventFeedQuery,
  FeedEvent,
  RedeliverRequest,
  RedeliverResponse,
  RotateWebhookSecretRequest,
  WebhookAttempt,
  WebhookAttemptPage,
  WebhookAttemptQuery,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointCreateRequest,
  WebhookEndpointListQuery,
  WebhookEndpointPage,
  WebhookEndpointUpdateRequest,
  WebhookSecrets,
} from './types.js';

export {
  SvcApiError,
  SvcAuthError,
  SvcConflictError,
  SvcIdempotencyError,
  SvcNotFoundError,
  SvcRateLimitError,
  SvcUnavailableError,
  SvcValidationError,
  type ApiErrorCode,
  type ErrorCode,
  type ValidationProblem,
} from './errors.js';
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
export type { RequestOptions, SvcClientOptions, WriteOptions } from './transport.js';
export type * from './types.js';
export type * from './sandbox.js';

const enc = encodeURIComponent;
type ListQuery<Q> = Omit<Q, 'cursor'>;

/** Follows next_cursor until the end, yielding each item once. */
async function* paginate<T, Q>(
  fetchPage: (query: Q) => Promise<{ items: T[]; next_cursor?: string | null }>,
  query: Q,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage({ ...query, ...(cursor ? { cursor } : {}) });
    yield* page.items;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

/** The feed until it has nothing more now (it has no end: next_cursor is always given), handing on each cursor. */
async function* catchUp(
  fetchPage: (query: EventFeedQuery) => Promise<EventFeedPage>,
  query: EventFeedQuery,
  onCursor?: (nextCursor: string) => void,
): AsyncGenerator<FeedEvent, void, undefined> {
  let next = query;
  for (;;) {
    const page = await fetchPage(next);
    yield* page.items;
    onCursor?.(page.next_cursor);
    if (!page.has_more) return;
    next = { ...query, cursor: page.next_cursor };
  }
}

/**
 * The svc API client. `new SvcClient({ baseUrl, clientId, clientSecret })` fetches and refreshes tokens
 * itself; `new SvcClient({ baseUrl, token })` uses a given token. Reads, and writes (which always carry an
 * Idempotency-Key), are retried with exponential backoff and jitter on 429, 5xx and network errors.
 */
export class SvcClient {
  readonly #http: Transport;

  constructor(options: SvcClientOptions) {
    this.#http = new Transport(options);
  }

  readonly fields = {
    list: (query: FieldListQuery = {} as FieldListQuery, options?: RequestOptions) =>
      this.#http.request<FieldPage>({ method: 'GET', path: '/v1/fields', query, options }),
    listAll: (query: ListQuery<FieldListQuery> = {} as FieldListQuery, options?: RequestOptions) =>
      paginate((q) => this.fields.list(q as FieldListQuery, options), query),
    get: (fieldId: string, options?: RequestOptions) =>
      this.#http.request<Field>({ method: 'GET', path: `/v1/fields/${enc(fieldId)}`, options }),
    create: (field: FieldCreate, options?: WriteOptions) =>
      this.#http.request<Field>({
        method: 'POST',
        path: '/v1/fields',
        body: field,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    update: (fieldId: string, changes: FieldUpdate, options?: WriteOptions) =>
      this.#http.request<Field>({
        method: 'PUT',
        path: `/v1/fields/${enc(fieldId)}`,
        body: changes,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    delete: (fieldId: string, options?: WriteOptions) =>
      this.#http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/v1/fields/${enc(fieldId)}`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };

  readonly fieldValues = {
    /** Up to 1000 values in one atomic batch; answers them in request order. */
    create: (fieldId: string, items: FieldValueCreate[], options?: WriteOptions) =>
      this.#http.request<{ items: FieldValue[] }>({
        method: 'POST',
        path: `/v1/fields/${enc(fieldId)}/values`,
        body: { items },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    get: (fieldId: string, svcId: string, options?: RequestOptions) =>
      this.#http.request<FieldValue>({
        method: 'GET',
        path: `/v1/fields/${enc(fieldId)}/values/${enc(svcId)}`,
        options,
      }),
    /** One page; pass the previous page's next_cursor as `cursor`. */
    list: (fieldId: string, query: FieldValueListQuery = {} as FieldValueListQuery, options?: RequestOptions) =>
      this.#http.request<FieldValuePage>({
        method: 'GET',
        path: `/v1/fields/${enc(fieldId)}/values`,
        query,
        options,
      }),
    /** Every value matching the filters, page after page: `for await (const v of listAll(fieldId))`. */
    listAll: (
      fieldId: string,
      query: ListQuery<FieldValueListQuery> = {} as FieldValueListQuery,
      options?: RequestOptions,
    ) => paginate((q) => this.fieldValues.list(fieldId, q as FieldValueListQuery, options), query),
    /**
     * Any number of values, sent 1000 at a time (each chunk atomic, with its own key derived from
     * `options.idempotencyKey`); answers them all in order, or throws SvcBatchError naming the chunks applied, the
     * one that failed and the ones not sent. Sending again with the same key resumes safely.
     */
    createAll: async (fieldId: string, items: FieldValueCreate[], options?: WriteOptions) =>
      inChunks(items, options?.idempotencyKey ?? newIdempotencyKey(), async (chunk, idempotencyKey) => {
        const answer = await this.fieldValues.create(fieldId, chunk, { ...options, idempotencyKey });
        return answer.items;
      }),
    /** As createAll, for updates. */
    updateAll: async (fieldId: string, items: FieldValueUpdate[], options?: WriteOptions) =>
      inChunks(items, options?.idempotencyKey ?? newIdempotencyKey(), async (chunk, idempotencyKey) => {
        const answer = await this.fieldValues.update(fieldId, chunk, { ...options, idempotencyKey });
        return answer.items;
      }),
    /** As createAll, for deletes; answers nothing. */
    deleteAll: async (fieldId: string, items: FieldValueDelete[], options?: WriteOptions): Promise<void> => {
      await inChunks(items, options?.idempotencyKey ?? newIdempotencyKey(), async (chunk, idempotencyKey) => {
        await this.fieldValues.delete(fieldId, chunk, { ...options, idempotencyKey });
        return [];
      });
    },
    update: (fieldId: string, items: FieldValueUpdate[], options?: WriteOptions) =>
      this.#http.request<{ items: FieldValue[] }>({
        method: 'PUT',
        path: `/v1/fields/${enc(fieldId)}/values`,
        body: { items },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    delete: (fieldId: string, items: FieldValueDelete[], options?: WriteOptions) =>
      this.#http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/v1/fields/${enc(fieldId)}/values`,
        body: { items },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };

  readonly accountingRecords = {
    get: (recordId: string, query: { single_entry?: boolean } = {}, options?: RequestOptions) =>
      this.#http.request<AccountingRecord>({
        method: 'GET',
        path: `/v3/accounting/records/${enc(recordId)}`,
        query,
        options,
      }),
    /** One page of records ordered by (updated_at, id). */
    query: (query: AccountingRecordQuery = {} as AccountingRecordQuery, options?: RequestOptions) =>
      this.#http.request<AccountingRecordPage>({
        method: 'GET',
        path: '/v3/accounting/records',
        query,
        options,
      }),
    /** Every matching record, following next_cursor. */
    queryAll: (query: ListQuery<AccountingRecordQuery> = {} as AccountingRecordQuery, options?: RequestOptions) =>
      paginate((q) => this.accountingRecords.query(q as AccountingRecordQuery, options), query),
    reportExportResults: (results: ExportResult[], options?: WriteOptions) =>
      this.#http.request<ExportResultsResponse>({
        method: 'POST',
        path: '/v3/accounting/records/export-results',
        body: { results },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };

  /**
   * The account's webhook endpoints (docs/webhooks.md): reads need webhooks.read or webhooks.write, everything else
   * webhooks.write. The secret of a new endpoint is in create's answer (and at `secrets`); a rotation answers the
   * new one.
   */
  readonly webhooks = {
    /** One page, in creation order. */
    list: (query: WebhookEndpointListQuery = {}, options?: RequestOptions) =>
      this.#http.request<WebhookEndpointPage>({ method: 'GET', path: '/v1/webhooks', query, options }),
    listAll: (query: ListQuery<WebhookEndpointListQuery> = {}, options?: RequestOptions) =>
      paginate((q: WebhookEndpointListQuery) => this.webhooks.list(q, options), query),
    get: (webhookId: string, options?: RequestOptions) =>
      this.#http.request<WebhookEndpoint>({ method: 'GET', path: `/v1/webhooks/${enc(webhookId)}`, options }),
    /**
     * Sent the events of its types that happen from now on; answers the endpoint with its secret. An account has at
     * most 20 endpoints: one more is a SvcConflictError with error_code WEBHOOK_ENDPOINT_LIMIT_REACHED.
     */
    create: (input: WebhookEndpointCreateRequest, options?: WriteOptions) =>
      this.#write<WebhookEndpointCreated>('POST', '/v1/webhooks', input, options),
    /** Absent members unchanged; `status` DISABLED pauses deliveries, ENABLED resumes them. */
    update: (webhookId: string, changes: WebhookEndpointUpdateRequest, options?: WriteOptions) =>
      this.#write<WebhookEndpoint>('PUT', `/v1/webhooks/${enc(webhookId)}`, changes, options),
    /** Its deliveries wait; the reason names who disabled it. */
    disable: (webhookId: string, options?: WriteOptions) =>
      this.webhooks.update(webhookId, { status: 'DISABLED' }, options),
    /** Waiting deliveries are due at once; events from now on are delivered (redeliver `since` for the gap). */
    enable: (webhookId: string, options?: WriteOptions) =>
      this.webhooks.update(webhookId, { status: 'ENABLED' }, options),
    /** With its deliveries and log; the events stay in the feed. */
    delete: (webhookId: string, options?: WriteOptions) =>
      this.#http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/v1/webhooks/${enc(webhookId)}`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    /** The signing secrets: the current one first, and during a rotation the previous one until it expires. */
    secrets: (webhookId: string, options?: RequestOptions) =>
      this.#http.request<WebhookSecrets>({ method: 'GET', path: `/v1/webhooks/${enc(webhookId)}/secret`, options }),
    /** A new secret; the old one keeps signing beside it for `previous_expires_in_seconds` (default 1 day). */
    rotateSecret: (webhookId: string, input: RotateWebhookSecretRequest = {}, options?: WriteOptions) =>
      this.#write<WebhookSecrets>('POST', `/v1/webhooks/${enc(webhookId)}/secret/rotate`, input, options),
    /** One page of the delivery log, newest attempt first; `event_id` keeps one event's attempts. */
    attempts: (webhookId: string, query: WebhookAttemptQuery = {}, options?: RequestOptions) =>
      this.#http.request<WebhookAttemptPage>({
        method: 'GET',
        path: `/v1/webhooks/${enc(webhookId)}/attempts`,
        query,
        options,
      }),
    attemptsAll: (webhookId: string, query: ListQuery<WebhookAttemptQuery> = {}, options?: RequestOptions) =>
      paginate<WebhookAttempt, WebhookAttemptQuery>((q) => this.webhooks.attempts(webhookId, q, options), query),
    /** `{event_id}`: that event again; `{since}`: every event of its types since then. Same ids, due now. */
    redeliver: (webhookId: string, input: RedeliverRequest, options?: WriteOptions) =>
      this.#write<RedeliverResponse>('POST', `/v1/webhooks/${enc(webhookId)}/redeliver`, input, options),
  };

  /**
   * The account's event feed (`GET /v1/events`): the events webhooks deliver, with the same ids, in commit order.
   * The feed has no end: keep a page's `next_cursor` and ask again with it (and the same `type` filter) later.
   */
  readonly events = {
    list: (query: EventFeedQuery = {}, options?: RequestOptions) =>
      this.#http.request<EventFeedPage>({ method: 'GET', path: '/v1/events', query, options }),
    /**
     * Every event there is now after `query.cursor` (from the oldest kept without one), page after page, until
     * `has_more` is false; `onCursor` receives each page's `next_cursor`, the one to resume from.
     */
    listAll: (
      query: EventFeedQuery = {},
      options?: RequestOptions & { onCursor?: (nextCursor: string) => void },
    ): AsyncGenerator<FeedEvent, void, undefined> =>
      catchUp((q) => this.events.list(q, options), query, options?.onCursor),
  };

  /** Sandbox servers only (docs/sandbox.md), with the operator's token: accounts, scenarios, faults. */
  get sandbox(): ReturnType<typeof sandboxApi> {
    return sandboxApi(this.#http);
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
   * The console's session (`session: true` clients in a browser): sign in with an email and password, read the
   * signed-in user, sign out, set a password with a one-time link. The CSRF token of the session is kept by the
   * client and sent with every write.
   */
  readonly session = {
    signIn: async (credentials: SignInRequest, options?: RequestOptions) =>
      this.#keepCsrf(
        await this.#http.request<ConsoleSession>({ method: 'POST', path: '/auth/session', body: credentials, options }),
      ),
    current: async (options?: RequestOptions) =>
      this.#keepCsrf(await this.#http.request<ConsoleSession>({ method: 'GET', path: '/auth/session', options })),
    signOut: async (options?: RequestOptions) => {
      await this.#http.request<Record<string, never>>({ method: 'DELETE', path: '/auth/session', options });
      this.#http.setCsrfToken(null);
    },
    setPassword: (input: SetPasswordRequest, options?: RequestOptions) =>
      this.#http.request<{ user: ConsoleUser }>({ method: 'POST', path: '/auth/password', body: input, options }),
  };

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
    revoke: (clientId: string, options?: WriteOptions) =>
      this.#http.request<Record<string, never>>({
        method: 'DELETE',
        path: `/internal/v1/clients/${enc(clientId)}`,
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };

  #keepCsrf(session: ConsoleSession): ConsoleSession {
    this.#http.setCsrfToken(session.csrf_token);
    return session;
  }

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

  readonly review = {
    /** Counts by state and source, the records waiting longest, failed exports, export reports per day. */
    overview: (options?: RequestOptions) =>
      this.#http.request<AccountingOverview>({ method: 'GET', path: '/internal/v1/accounting/overview', options }),
    /** Creates records from source activity (accounting.record.admin): up to 1000, all or none. */
    createRecords: (items: RecordCreate[], options?: WriteOptions) =>
      this.#http.request<{ items: AccountingRecord[] }>({
        method: 'POST',
        path: '/internal/v1/accounting/records',
        body: { items },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    /** Sets the coding of economic lines; answers the record in double- and single-entry form. */
    codeLines: (recordId: string, input: CodeLinesRequest, options?: WriteOptions) =>
      this.#write<RecordWithSingleEntry>(
        'POST',
        `/internal/v1/accounting/records/${enc(recordId)}/coding`,
        input,
        options,
      ),
    splitLine: (recordId: string, lineId: string, input: SplitLineRequest, options?: WriteOptions) =>
      this.#write<RecordWithSingleEntry>(
        'POST',
        `/internal/v1/accounting/records/${enc(recordId)}/lines/${enc(lineId)}/split`,
        input,
        options,
      ),
    mergeLines: (recordId: string, input: MergeLinesRequest, options?: WriteOptions) =>
      this.#write<RecordWithSingleEntry>(
        'POST',
        `/internal/v1/accounting/records/${enc(recordId)}/lines/merge`,
        input,
        options,
      ),
    /** One record, one step. */
    moveRecord: (recordId: string, input: ReviewMoveRequest, options?: WriteOptions) =>
      this.#write<AccountingRecord>(
        'POST',
        `/internal/v1/accounting/records/${enc(recordId)}/review-status`,
        input,
        options,
      ),
    /** Up to 1000 records to one review state, all or nothing (a refusal names every record that cannot move). */
    moveRecords: (input: BulkMoveRequest, options?: WriteOptions) =>
      this.#write<BulkMoveResponse>('POST', '/internal/v1/accounting/records/review-status', input, options),
    history: (recordId: string, query: RecordHistoryQuery = {}, options?: RequestOptions) =>
      this.#http.request<RecordHistoryPage>({
        method: 'GET',
        path: `/internal/v1/accounting/records/${enc(recordId)}/history`,
        query,
        options,
      }),
    /** Every event of the record, in version order. */
    historyAll: (recordId: string, options?: RequestOptions) =>
      paginate((q: RecordHistoryQuery) => this.review.history(recordId, q, options), {}),
    /** One page of the review queue's search. */
    search: (query: RecordSearchQuery = {}, options?: RequestOptions) =>
      this.#http.request<RecordSearchPage>({ method: 'GET', path: '/internal/v1/accounting/records', query, options }),
    searchAll: (query: ListQuery<RecordSearchQuery> = {}, options?: RequestOptions) =>
      paginate((q: RecordSearchQuery) => this.review.search(q, options), query),
    requiredCoding: (options?: RequestOptions) =>
      this.#http.request<RequiredCoding>({ method: 'GET', path: '/internal/v1/accounting/required-coding', options }),
    /** Replaces the account's required fields (accounting.record.admin). */
    setRequiredCoding: (fieldIds: string[], options?: WriteOptions) =>
      this.#write<RequiredCoding>('PUT', '/internal/v1/accounting/required-coding', { field_ids: fieldIds }, options),
    /** Values of a field for a coding picker: starting with the text first, then containing it. */
    searchFieldValues: (fieldId: string, query: FieldValueSearchQuery, options?: RequestOptions) =>
      this.#http.request<{ items: FieldValue[] }>({
        method: 'GET',
        path: `/internal/v1/fields/${enc(fieldId)}/values/search`,
        query,
        options,
      }),
  };

  #write<T>(method: 'POST' | 'PUT', path: string, body: unknown, options?: WriteOptions): Promise<T> {
    return this.#http.request<T>({
      method,
      path,
      body,
      idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
      options,
    });
  }
}
