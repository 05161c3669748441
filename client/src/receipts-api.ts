import { newIdempotencyKey, type RequestOptions, type Transport } from './transport.js';
import type { Receipt, ReceiptRemoveAnswer, ReceiptUploadAnswer } from './types.js';

const enc = encodeURIComponent;
const receiptsPath = (recordId: string) => `/internal/v1/accounting/records/${enc(recordId)}/receipts`;

const isBytes = (x: Uint8Array<ArrayBuffer> | UploadOptions | undefined): x is Uint8Array<ArrayBuffer> =>
  x instanceof Uint8Array;

export interface UploadOptions extends RequestOptions {
  /** Sent as the Content-Type; the server recognises the type from the bytes whatever this says. */
  contentType?: string;
  /** The Idempotency-Key (a new one by default): a retry of the same file is answered as the first was. */
  idempotencyKey?: string;
}

/**
 * Receipts (docs/receipts.md): a file uploaded alone or attached to a record (JPEG, PNG, WebP, PDF, recognised by its bytes), removed
 * from it, and read with fresh signed links (`download_uri`, `thumbnail_uri`, valid for minutes).
 */
export function receiptsApi(http: Transport) {
  /**
   * Uploads `bytes`: with a record id, attaches the receipt to that record (answering both); without, the receipt
   * is tied to no record, answered alone, for ingestion to name in an item's `receipt_ids`. The same bytes again
   * are the same receipt.
   */
  function upload(bytes: Uint8Array<ArrayBuffer>, options?: UploadOptions): Promise<Receipt>;
  function upload(
    recordId: string,
    bytes: Uint8Array<ArrayBuffer>,
    options?: UploadOptions,
  ): Promise<ReceiptUploadAnswer>;
  async function upload(
    first: string | Uint8Array<ArrayBuffer>,
    second?: Uint8Array<ArrayBuffer> | UploadOptions,
    third?: UploadOptions,
  ): Promise<Receipt | ReceiptUploadAnswer> {
    const send = (path: string, bytes: Uint8Array<ArrayBuffer>, options?: UploadOptions) =>
      http.request<Receipt | ReceiptUploadAnswer>({
        method: 'POST',
        path,
        raw: { bytes, contentType: options?.contentType ?? 'application/octet-stream' },
        idempotencyKey: options?.idempotencyKey ?? newIdempotencyKey(),
        options,
      });
    if (typeof first !== 'string') return send('/internal/v1/receipts', first, isBytes(second) ? undefined : second);
    if (!isBytes(second)) throw new TypeError('receipts.upload(recordId, bytes): bytes must be a Uint8Array');
    return send(receiptsPath(first), second, third);
  }

  return {
    upload,
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
