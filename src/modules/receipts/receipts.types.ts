import { fileTypeFromBuffer } from 'file-type';
import { loadSharp } from './sharp.js';

/** The types a receipt may be, recognised from its bytes alone (never its name or declared type). */
export const RECEIPT_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'application/pdf', 'image/heic'] as const;
export type ReceiptType = (typeof RECEIPT_TYPES)[number];

/** Images get thumbnails (sharp); a PDF gets none. */
export const IMAGE_TYPES: readonly ReceiptType[] = ['image/jpeg', 'image/png', 'image/webp', 'image/heic'];

/**
 * HEIC is accepted only where this server's sharp (libvips with libheif) can decode it: the prebuilt sharp reads
 * AVIF but not HEVC-coded HEIC, so a phone's photo would be stored and never shown.
 */
export const heicDecodable = async (): Promise<boolean> =>
  (await loadSharp()).format.heif.input.fileSuffix?.includes('.heic') === true;

export type Recognised =
  | { ok: true; type: ReceiptType; extension: string }
  | { ok: false; found: string | null; reason: 'UNKNOWN' | 'NOT_ACCEPTED' | 'HEIC_NOT_DECODABLE' };

export async function recognise(bytes: Buffer): Promise<Recognised> {
  const found = await fileTypeFromBuffer(bytes);
  if (!found) return { ok: false, found: null, reason: 'UNKNOWN' };
  const type = found.mime === 'image/heif' ? 'image/heic' : found.mime;
  if (type === 'image/heic' && !(await heicDecodable()))
    return { ok: false, found: type, reason: 'HEIC_NOT_DECODABLE' };
  const accepted = RECEIPT_TYPES.find((t) => t === type);
  if (!accepted) return { ok: false, found: type, reason: 'NOT_ACCEPTED' };
  return { ok: true, type: accepted, extension: found.ext };
}
