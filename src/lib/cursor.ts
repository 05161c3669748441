import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { errors } from '../errors.js';
import { canonicalJson } from './canonical-json.js';

/**
 * Opaque, tamper-proof pagination cursors. The position (the keyset values of the last item) is sealed with
 * AES-256-GCM under the account's cursor key, which lives in the database and so is shared by every process
 * serving it. The additional data binds the cursor to the list it came from and its filters: a modified
 * cursor, one of another account, another list or other filters fails to open → 400 INVALID_CURSOR.
 */
export type CursorPosition = readonly (string | number)[];

function binding(list: string, filters: unknown): Buffer {
  return createHash('sha256')
    .update(`${list}\n${canonicalJson(filters)}`)
    .digest();
}

export function sealCursor(key: Buffer, list: string, filters: unknown, position: CursorPosition): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(binding(list, filters));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(position), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

export function openCursor(key: Buffer, list: string, filters: unknown, cursor: string): CursorPosition {
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    const raw = Buffer.from(cursor, 'base64url');
    if (raw.length < 12 + 16 + 2) throw new Error('too short');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(binding(list, filters));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    const text = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
    const position: unknown = JSON.parse(text);
    if (!Array.isArray(position) || !position.every((v) => typeof v === 'string' || typeof v === 'number')) {
      throw new Error('bad position');
    }
    return position;
  } catch {
    throw errors.invalidCursor();
  }
}
