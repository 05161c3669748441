import { writer, type RequestOptions, type Transport, type WriteOptions } from './transport.js';
import type {
  CodingSuggestionsAccepted,
  CodingSuggestionsAcceptRequest,
  CodingSuggestionsPage,
  RecordCodingSuggestions,
} from './types.js';

const enc = encodeURIComponent;
const RECORDS = '/internal/v1/accounting/records';

/**
 * Coding suggestions (docs/suggestions.md): for each economic line of a record, the most likely value of each
 * field it has none in, learned from the account's approved records, with a confidence and its reason in words.
 * Needs accounting.record.review or accounting.record.admin. Accepting carries an Idempotency-Key (one of its own
 * unless given), so a retry never codes twice.
 */
export function suggestionsApi(http: Transport) {
  const write = writer(http);
  return {
    /** One record's suggestions (a SvcNotFoundError for a record the account does not have). */
    get: (recordId: string, options?: RequestOptions) =>
      http.request<RecordCodingSuggestions>({
        method: 'GET',
        path: `${RECORDS}/${enc(recordId)}/suggestions`,
        options,
      }),
    /**
     * The suggestions of up to 200 records (a grid page), in the order given. Nothing is written, so it takes no
     * Idempotency-Key.
     */
    list: async (recordIds: readonly string[], options?: RequestOptions) =>
      (
        await http.request<CodingSuggestionsPage>({
          method: 'POST',
          path: '/internal/v1/accounting/suggestions',
          body: { accounting_record_ids: recordIds },
          options,
        })
      ).items,
    /**
     * Codes the record's lines with its suggestions as they are now (of `line_ids` and `field_ids` when given) in
     * one new version; `version` must be the record's current one, else a SvcConflictError with error_code
     * VERSION_CONFLICT. Answers the record and what was accepted (nothing accepted: nothing changed).
     */
    accept: (recordId: string, input: CodingSuggestionsAcceptRequest, options?: WriteOptions) =>
      write<CodingSuggestionsAccepted>('POST', `${RECORDS}/${enc(recordId)}/suggestions/accept`, input, options),
  };
}
