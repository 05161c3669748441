import { newIdempotencyKey, type RequestOptions, type Transport } from './transport.js';
import type { Receipt, ReceiptRemoveAnswer, ReceiptUploadAnswer } from './types.js';

const enc = encodeURIComponent;
const receiptsPath = (recordId: string) => `/internal/v1/accounting/records/${enc(recordId)}/receipts`;

export interface UploadOptions extends RequestOptions {
  /** Sent as the Content-Type; the server recognises the type from the bytes whatever this says. */
  contentType?: string;
  /** The Idempotency-Key (a new one by default): a retry of the same file is answered as the first was. */
  idempotencyKey?: string;
}

/**
 * Receipts (docs/receipts.md): a file attached to a record (JPEG, PNG, WebP, PDF, recognised by its bytes), removed
 * from it, and read with fresh signed links (`download_uri`, `thumbnail_uri`, valid for minutes).
 */
export function receiptsApi(http: Transport) {
  return {
    /** Uploads `bytes` and attaches the receipt to the record; the same bytes again are the same receipt. */
    upload: async (
      recordId: string,
      bytes: Uint8Array<ArrayBuffer>,
      options?: UploadOptions,
    ): Promise<ReceiptUploadAnswer> =>
      http.request<ReceiptUploadAnswer>({
        method: 'POST',
        path: receiptsPath(recordId),
        raw: { bytes, contentType: options?.contentType ?? 'application/octet-stream' },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      }),
    /** Removes the receipt from the record (it stays stored; the record's history names it). */
    remove: async (recordId: string, receiptId: string, options?: RequestOptions): Promise<ReceiptRemoveAnswer> =>
      http.request<ReceiptRemoveAnswer>({
        method: 'DELETE',
        path: `${receiptsPath(recordId)}/${enc(receiptId)}`,
        idempotencyKey: newIdempotencyKey(),
        options,
      }),
    /** A stored receipt with fresh signed links. */
    get: async (receiptId: string, options?: RequestOptions): Promise<Receipt> =>
      http.request<Receipt>({ method: 'GET', path: `/internal/v1/receipts/${enc(receiptId)}`, options }),
  };
}
