import { SvcApiError } from '@svc/client';
import { shownError } from '../../lib/errors';

/** "12 KB", "1.4 MB": a file's size as a person reads it. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / (1024 * 1024);
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`;
}

const KINDS: Record<string, string> = {
  'image/jpeg': 'JPEG image',
  'image/png': 'PNG image',
  'image/webp': 'WebP image',
  'image/heic': 'HEIC image',
  'application/pdf': 'PDF',
};

/** "JPEG image", "PDF": a stored receipt's type in words. */
export const receiptKind = (contentType: string): string => KINDS[contentType] ?? contentType;

const numberIn = (details: Record<string, unknown> | null, name: string): number | null => {
  const value = details?.[name];
  return typeof value === 'number' ? value : null;
};

/** Why an upload of `name` was refused, in plain words, from the service's error_code and details. */
export function uploadRefusal(name: string, error: unknown): string {
  if (!(error instanceof SvcApiError)) return `${name} was not attached: ${shownError(error).message}`;
  switch (error.error_code) {
    case 'PAYLOAD_TOO_LARGE': {
      const limit = numberIn(error.details, 'limit_bytes');
      return `${name} is too large: a receipt can be at most ${limit === null ? 'the size the service allows' : formatBytes(limit)}.`;
    }
    case 'UNSUPPORTED_RECEIPT_TYPE':
      return `${name} is not a file type receipts can be: send a JPEG, PNG or WebP photo, or a PDF.`;
    case 'RECEIPT_LIMIT_REACHED': {
      const limit = numberIn(error.details, 'limit');
      return `${name} was not attached: this record has ${limit === null ? 'as many receipts as it may' : `${limit} receipts, the most it may have`}. Remove one first.`;
    }
    case 'RECEIPT_ATTACHED_ELSEWHERE': {
      const other = error.details?.attached_to_record_id;
      return `${name} was not attached: the same file is a receipt of ${typeof other === 'string' ? `record ${other}` : 'another record'} already, and a receipt belongs to one record. Remove it there first if it was attached by mistake.`;
    }
    case 'INVALID_REQUEST':
      return `${name} is empty or could not be read.`;
    case 'FORBIDDEN':
      return `${name} was not attached: your role may not attach receipts.`;
    case 'NOT_FOUND':
      return `${name} was not attached: the record is no longer in your account.`;
    default:
      return `${name} was not attached: ${shownError(error).message}`;
  }
}
