import { AppError } from './app-error.js';

/** What RECEIPT_REQUIRED names of a record (or an item being created, by its path) that needs a receipt. */
export type ReceiptShortfall = {
  record_type: string;
  currency: string;
  amount_minor: number;
  above_minor: number;
};

/** Refusals of receipts (docs/receipts.md). Used through `errors` (src/errors.ts). */
export const receiptsErrors = {
  /** A move of one record to READY_FOR_EXPORT refused by the account's receipt policy. `shown`: amounts in words. */
  receiptRequired: (
    detail: ReceiptShortfall & { accounting_record_id: string },
    shown: { amount: string; above: string },
  ) =>
    new AppError(
      'RECEIPT_REQUIRED',
      422,
      `Accounting record ${detail.accounting_record_id} needs a receipt before READY_FOR_EXPORT: its amount ${shown.amount} is above ${shown.above}, the account's receipt threshold for ${detail.record_type}. Attach a receipt first; nothing was changed.`,
      detail,
    ),
  /** Items created READY_FOR_EXPORT that the account's receipt policy requires a receipt of, each by its path. */
  receiptsRequiredAtIngestion: (records: (ReceiptShortfall & { path: string })[]) =>
    new AppError(
      'RECEIPT_REQUIRED',
      422,
      `${records.length === 1 ? '1 item needs' : `${records.length} items need`} a receipt to be created READY_FOR_EXPORT (the account's receipt policy): send receipts with ${records.map((r) => r.path).join(', ')}, or create them in an earlier state; nothing was changed.`,
      { records },
    ),
  unsupportedReceiptType: (detected: string | null, accepted: readonly string[], heicDecodable: boolean) =>
    new AppError(
      'UNSUPPORTED_RECEIPT_TYPE',
      415,
      detected === 'image/heic' && !heicDecodable
        ? 'The file is a HEIC image, which this server cannot decode: send it as JPEG (phones can share photos as JPEG).'
        : `The file is ${detected === null ? 'of no type svc recognises' : detected}: a receipt must be ${accepted.join(', ')}, recognised from its bytes (its name and declared type are not read).`,
      { detected_type: detected, accepted_types: accepted },
    ),
  receiptTooLarge: (limit: number) =>
    new AppError('PAYLOAD_TOO_LARGE', 413, `A receipt may be at most ${limit} bytes.`, { limit_bytes: limit }),
  receiptMissing: () =>
    new AppError(
      'INVALID_REQUEST',
      400,
      'No file was sent: send the receipt as the body (with its Content-Type) or as the one file of a multipart/form-data body.',
      { errors: [{ path: '', message: 'must hold a file' }] },
    ),
  receiptLimitReached: (recordId: string, limit: number) =>
    new AppError(
      'RECEIPT_LIMIT_REACHED',
      409,
      `Accounting record ${recordId} already has ${limit} receipts, the most a record may have: remove one first.`,
      { accounting_record_id: recordId, limit },
    ),
  /** A receipt svc stores is attached to one record; `attachedTo` lists it already. */
  receiptAttachedElsewhere: (receiptId: string, recordId: string, attachedTo: string) =>
    new AppError(
      'RECEIPT_ATTACHED_ELSEWHERE',
      409,
      `Receipt ${receiptId} (the same file: a receipt is its bytes) is attached to accounting record ${attachedTo} already, and a receipt belongs to one record: nothing was attached to ${recordId}. Remove it from ${attachedTo} first if it was attached there by mistake.`,
      { accounting_record_id: recordId, receipt_id: receiptId, attached_to_record_id: attachedTo },
    ),
  invalidReceiptLink: () =>
    new AppError(
      'INVALID_RECEIPT_LINK',
      403,
      "This receipt link is not valid: take a fresh one from the record's receipts[].download_uris.",
    ),
  receiptLinkExpired: () =>
    new AppError(
      'RECEIPT_LINK_EXPIRED',
      403,
      "This receipt link has expired: take a fresh one from the record's receipts[].download_uris.",
    ),
};
