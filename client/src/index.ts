import {
  Transport,
  newIdempotencyKey,
  type RequestOptions,
  type SvcClientOptions,
  type WriteOptions,
} from './transport.js';
import type {
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
} from './types.js';

export { SvcApiError } from './errors.js';
export type { RequestOptions, SvcClientOptions, WriteOptions } from './transport.js';
export type * from './types.js';

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
   * The internal review workflow (scope accounting.record.review, or accounting.record.admin): code, split and
   * merge lines, move records through review one at a time or up to 1000 at once, read a record's history, find
   * records to review, and the account's required coding.
   */
  readonly review = {
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
