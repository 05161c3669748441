import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from '../../errors.js';
import { nowMicros } from '../../lib/clock.js';

/**
 * Download links of the receipts svc stores (docs/receipts.md): signed (HMAC-SHA256 under a key derived for the
 * account from the server's key), expiring, written when an answer is written, never stored. A record's stored
 * receipts name a receipt svc holds by the mark STORED_MARK in its download_uris; the record's answer replaces the
 * mark with a fresh link (the one seam: record.shape.ts's receipts member). Receipts ingested with their own
 * URIs are answered as they came.
 */
export const STORED_MARK = 'svc-receipt:stored';
const MARKED = `"${STORED_MARK}"`;

export interface ReceiptLinkSettings {
  /** The server's key: RECEIPT_LINK_SECRET, or the one svc keeps in its database. */
  secret: string;
  /** Where clients reach svc (PUBLIC_URL). */
  baseUrl: string;
  ttlSeconds: number;
}

// Set once by buildApp (as the password-hashing cost is): the record shape writes links wherever a record is answered.
let settings: ReceiptLinkSettings | null = null;

export function configureReceiptLinks(next: ReceiptLinkSettings): void {
  settings = next;
}

function current(): ReceiptLinkSettings {
  if (settings === null) throw new Error('receipt links are not configured (buildApp configures them)');
  return settings;
}

function signature(accountId: string, receiptId: string, expires: number): Buffer {
  const accountKey = createHmac('sha256', current().secret).update(`receipt-links\n${accountId}`).digest();
  return createHmac('sha256', accountKey).update(`${receiptId}\n${expires}`).digest();
}

export const receiptLinksService = {
  /** The path of a receipt's bytes (`content`) or thumbnail, without the signature. */
  path(receiptId: string, variant: 'content' | 'thumbnail'): string {
    return `/internal/v1/receipts/${encodeURIComponent(receiptId)}/${variant}`;
  },

  /** A link to the receipt's bytes that works for RECEIPT_LINK_TTL_SECONDS from now. */
  link(accountId: string, receiptId: string, variant: 'content' | 'thumbnail' = 'content'): string {
    const { baseUrl, ttlSeconds } = current();
    const expires = Math.floor(nowMicros() / 1_000_000) + ttlSeconds;
    const sig = signature(accountId, receiptId, expires).toString('base64url');
    const query = new URLSearchParams({ account: accountId, expires: String(expires), signature: sig });
    return `${baseUrl}${this.path(receiptId, variant)}?${query.toString()}`;
  },

  /** Throws 403 INVALID_RECEIPT_LINK for a link svc did not sign for this account and receipt, RECEIPT_LINK_EXPIRED past its time. */
  verify(link: { account: string; receiptId: string; expires: number; signature: string }): void {
    const given = Buffer.from(link.signature, 'base64url');
    const expected = signature(link.account, link.receiptId, link.expires);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw errors.invalidReceiptLink();
    if (Math.floor(nowMicros() / 1_000_000) >= link.expires) throw errors.receiptLinkExpired();
  },

  /** The stored receipts (JSON text in the answer's form) with a fresh link in place of each mark. */
  withLinks(json: string, accountId: string): string {
    if (!json.includes(MARKED)) return json;
    return json.replace(
      /\{"id":("(?:[^"\\]|\\.)*"),"download_uris":\["svc-receipt:stored"\]\}/g,
      (_all, id: string) => {
        const receiptId: unknown = JSON.parse(id);
        return typeof receiptId === 'string'
          ? `{"id":${id},"download_uris":[${JSON.stringify(this.link(accountId, receiptId))}]}`
          : _all;
      },
    );
  },

  /** The stored receipts (objects) with a fresh link in place of each mark. */
  objectsWithLinks<R extends { id: string; download_uris?: string[] | null }>(receipts: R[], accountId: string): R[] {
    return receipts.map((r) =>
      r.download_uris?.length === 1 && r.download_uris[0] === STORED_MARK
        ? { ...r, download_uris: [this.link(accountId, r.id)] }
        : r,
    );
  },
};
