import { AppError } from './app-error.js';

/** Refusals of receipts (docs/receipts.md). Used through `errors` (src/errors.ts). */
export const receiptsErrors = {
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
