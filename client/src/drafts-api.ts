import type { RequestOptions, Transport } from './transport.js';
import type { RecordDraft, RecordDraftAnswer, RecordDraftRequest } from './types.js';

const enc = encodeURIComponent;
const draftPath = (recordId: string) => `/internal/v1/accounting/records/${enc(recordId)}/draft`;

/**
 * The signed-in console user's own draft of a record's coding (docs/console.md, "Work is never lost"): kept on the
 * server, so it outlives the tab and the session. Console sessions only (an API client is refused, 403). Putting
 * and deleting a draft are idempotent by nature: they carry no Idempotency-Key.
 */
export function draftsApi(http: Transport) {
  return {
    /** The draft, or null when there is none. */
    get: async (recordId: string, options?: RequestOptions): Promise<RecordDraft | null> =>
      (await http.request<RecordDraftAnswer>({ method: 'GET', path: draftPath(recordId), options })).draft,
    /** Replaces the draft (413 PAYLOAD_TOO_LARGE past the size limit). */
    put: async (recordId: string, input: RecordDraftRequest, options?: RequestOptions): Promise<RecordDraft> =>
      (
        await http.request<{ draft: RecordDraft }>({
          method: 'PUT',
          path: draftPath(recordId),
          body: input,
          options,
        })
      ).draft,
    delete: async (recordId: string, options?: RequestOptions): Promise<void> => {
      await http.request<Record<string, never>>({ method: 'DELETE', path: draftPath(recordId), options });
    },
  };
}
