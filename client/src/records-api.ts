import { exportedFileOf, type ExportedFile } from './export-file.js';
import { paginate } from './pages.js';
import type { FileAnswer } from './sender.js';
import { writer, newIdempotencyKey, type RequestOptions, type Transport, type WriteOptions } from './transport.js';
import type {
  AccountingOverview,
  AccountingRecord,
  AccountingRecordPage,
  AccountingRecordQuery,
  ExportFileRequest,
  ExportMapping,
  ExportMappingRequest,
  ExportResult,
  ExportResultsResponse,
  FieldValue,
  BulkMoveRequest,
  BulkMoveResponse,
  BulkCodingItem,
  BulkCodingResult,
  CodeLinesRequest,
  FieldValueSearchQuery,
  MergeLinesRequest,
  RecordCreate,
  RecordHistoryPage,
  RecordForReview,
  RecordHistoryQuery,
  RecordsAllowedMoves,
  RecordSearchPage,
  RecordSearchQuery,
  RecordWithSingleEntry,
  RequiredCoding,
  ReviewMoveRequest,
  ReceiptPolicy,
  ReceiptPolicyRequest,
  ReviewSettings,
  ReviewSettingsRequest,
  SplitLineRequest,
} from './types.js';

const enc = encodeURIComponent;
type ListQuery<Q> = Omit<Q, 'cursor'>;

/* Accounting records (/v3/accounting/records) and the internal review workflow. */

export function accountingRecordsApi(http: Transport) {
  const write = writer(http);
  /** One page of records ordered by (updated_at, id). */
  const queryPage = (query: AccountingRecordQuery = {} as AccountingRecordQuery, options?: RequestOptions) =>
    http.request<AccountingRecordPage>({
      method: 'GET',
      path: '/v3/accounting/records',
      query,
      options,
    });
  const exportDownload = async (body: ExportFileRequest, options?: RequestOptions): Promise<ExportedFile> =>
    exportedFileOf(
      await http.request<FileAnswer>({
        method: 'POST',
        path: '/internal/v1/accounting/exports',
        body,
        options,
        file: true,
      }),
    );
  return {
    get: (recordId: string, query: { single_entry?: boolean } = {}, options?: RequestOptions) =>
      http.request<AccountingRecord>({
        method: 'GET',
        path: `/v3/accounting/records/${enc(recordId)}`,
        query,
        options,
      }),
    query: queryPage,
    /** Every matching record, following next_cursor. */
    queryAll: (query: ListQuery<AccountingRecordQuery> = {} as AccountingRecordQuery, options?: RequestOptions) =>
      paginate((q) => queryPage(q as AccountingRecordQuery, options), query),
    /**
     * The selected READY_FOR_EXPORT records as one file (an hledger journal, Beancount, CSV): its text. Nothing
     * changes; report each record's outcome with reportExportResults. `exportDownload` answers the same file with
     * the name and media type the server gives it.
     */
    exportFile: async (body: ExportFileRequest, options?: RequestOptions): Promise<string> =>
      (await exportDownload(body, options)).text,
    /** The same file as exportFile, with its name (Content-Disposition), media type and record count. */
    exportDownload,
    /** The account's export mapping: what every export books with where its request does not say otherwise. */
    exportMapping: (options?: RequestOptions) =>
      http.request<ExportMapping>({ method: 'GET', path: '/internal/v1/accounting/export-mapping', options }),
    /** Replaces the account's export mapping (what is not given takes its default); admins only. */
    setExportMapping: (mapping: ExportMappingRequest, options?: WriteOptions) =>
      write<ExportMapping>('PUT', '/internal/v1/accounting/export-mapping', mapping, options),
    reportExportResults: (results: ExportResult[], options?: WriteOptions) =>
      http.request<ExportResultsResponse>({
        method: 'POST',
        path: '/v3/accounting/records/export-results',
        body: { results },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
  };
}

export function reviewApi(http: Transport) {
  const write = writer(http);
  const history = (recordId: string, query: RecordHistoryQuery = {}, options?: RequestOptions) =>
    http.request<RecordHistoryPage>({
      method: 'GET',
      path: `/internal/v1/accounting/records/${enc(recordId)}/history`,
      query,
      options,
    });
  /** One page of the review queue's search. */
  const search = (query: RecordSearchQuery = {}, options?: RequestOptions) =>
    http.request<RecordSearchPage>({ method: 'GET', path: '/internal/v1/accounting/records', query, options });
  return {
    /** Counts by state and source, the records waiting longest, failed exports, export reports per day. */
    overview: (options?: RequestOptions) =>
      http.request<AccountingOverview>({ method: 'GET', path: '/internal/v1/accounting/overview', options }),
    /** Creates records from source activity (accounting.record.admin): up to 1000, all or none. */
    createRecords: (items: RecordCreate[], options?: WriteOptions) =>
      http.request<{ items: AccountingRecord[] }>({
        method: 'POST',
        path: '/internal/v1/accounting/records',
        body: { items },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    /** Sets the coding of economic lines; answers the record in double- and single-entry form. */
    codeLines: (recordId: string, input: CodeLinesRequest, options?: WriteOptions) =>
      write<RecordWithSingleEntry>('POST', `/internal/v1/accounting/records/${enc(recordId)}/coding`, input, options),
    /**
     * Codes up to 200 records in one request, each saved on its own (not all or nothing): answers each record's
     * outcome in order, SAVED with the record as coded or REFUSED with its error (VERSION_CONFLICT,
     * RECORD_NOT_EDITABLE, INVALID_CODING, INVALID_REQUEST, NOT_FOUND). Carries an Idempotency-Key.
     */
    codeRecords: async (items: BulkCodingItem[], options?: WriteOptions): Promise<BulkCodingResult[]> =>
      (await write<{ items: BulkCodingResult[] }>('POST', '/internal/v1/accounting/records/coding', { items }, options))
        .items,
    splitLine: (recordId: string, lineId: string, input: SplitLineRequest, options?: WriteOptions) =>
      write<RecordWithSingleEntry>(
        'POST',
        `/internal/v1/accounting/records/${enc(recordId)}/lines/${enc(lineId)}/split`,
        input,
        options,
      ),
    mergeLines: (recordId: string, input: MergeLinesRequest, options?: WriteOptions) =>
      write<RecordWithSingleEntry>(
        'POST',
        `/internal/v1/accounting/records/${enc(recordId)}/lines/merge`,
        input,
        options,
      ),
    /** One record, one step. */
    moveRecord: (recordId: string, input: ReviewMoveRequest, options?: WriteOptions) =>
      write<AccountingRecord>('POST', `/internal/v1/accounting/records/${enc(recordId)}/review-status`, input, options),
    /**
     * Up to 1000 records to one review state, all or nothing (a refusal names every record that cannot move); with
     * `partial: true`, those that may move do and `not_moved` names the others.
     */
    moveRecords: (input: BulkMoveRequest, options?: WriteOptions) =>
      write<BulkMoveResponse>('POST', '/internal/v1/accounting/records/review-status', input, options),
    /** A record in both forms (one version) with the moves the server allows it now, and why not the others. */
    getForReview: (recordId: string, options?: RequestOptions) =>
      http.request<RecordForReview>({
        method: 'GET',
        path: `/internal/v1/accounting/records/${enc(recordId)}`,
        options,
      }),
    /** The allowed moves of up to 500 records (those of the caller's account; others are left out). */
    allowedMoves: (ids: string[], options?: RequestOptions) =>
      http.request<RecordsAllowedMoves>({
        method: 'GET',
        path: '/internal/v1/accounting/records/allowed-moves',
        query: { ids },
        options,
      }),
    history,
    /** Every event of the record, in version order. */
    historyAll: (recordId: string, options?: RequestOptions) =>
      paginate((q: RecordHistoryQuery) => history(recordId, q, options), {}),
    search,
    searchAll: (query: ListQuery<RecordSearchQuery> = {}, options?: RequestOptions) =>
      paginate((q: RecordSearchQuery) => search(q, options), query),
    requiredCoding: (options?: RequestOptions) =>
      http.request<RequiredCoding>({ method: 'GET', path: '/internal/v1/accounting/required-coding', options }),
    /** Replaces the account's required fields (accounting.record.admin). */
    setRequiredCoding: (fieldIds: string[], options?: WriteOptions) =>
      write<RequiredCoding>('PUT', '/internal/v1/accounting/required-coding', { field_ids: fieldIds }, options),
    /** The account's review settings: auto_submit (docs/coding-rules.md, "Auto-submit"). */
    reviewSettings: (options?: RequestOptions) =>
      http.request<ReviewSettings>({ method: 'GET', path: '/internal/v1/accounting/review-settings', options }),
    /**
     * Replaces the account's review settings (accounting.record.admin): with auto_submit, records ingested in
     * PREPARE that coding rules coded and that then carry the required coding go on to REVIEW in the ingestion
     * itself (records sent coded, no rule setting a value, stay in PREPARE).
     */
    setReviewSettings: (settings: ReviewSettingsRequest, options?: WriteOptions) =>
      write<ReviewSettings>('PUT', '/internal/v1/accounting/review-settings', settings, options),
    /**
     * The account's receipt policy (docs/receipts.md, "Receipt policy"): per currency, the amount (minor units)
     * above which a record of the listed types needs a receipt before READY_FOR_EXPORT.
     */
    receiptPolicy: (options?: RequestOptions) =>
      http.request<ReceiptPolicy>({ method: 'GET', path: '/internal/v1/accounting/receipt-policy', options }),
    /** Replaces the account's receipt policy (accounting.record.admin); a bad rule is an SvcValidationError. */
    setReceiptPolicy: (policy: ReceiptPolicyRequest, options?: WriteOptions) =>
      write<ReceiptPolicy>('PUT', '/internal/v1/accounting/receipt-policy', policy, options),
    /** Values of a field for a coding picker: starting with the text first, then containing it. */
    searchFieldValues: (fieldId: string, query: FieldValueSearchQuery, options?: RequestOptions) =>
      http.request<{ items: FieldValue[] }>({
        method: 'GET',
        path: `/internal/v1/fields/${enc(fieldId)}/values/search`,
        query,
        options,
      }),
  };
}
