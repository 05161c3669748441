import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { ReceiptStore } from './receipts.store.js';

/**
 * How much of a receipt one statement of a download reads. A chunk in flight costs about five times its size (the
 * bytea's hex text as pg receives it, that text as a string, the bytes), and each download holds one or two while
 * its client reads: at 1 MiB, 100 concurrent downloads of 10 MB grew the server by 282 MB; a quarter of that
 * keeps them under 100 MB (bench --receipts, docs/performance.md).
 */
export const CHUNK_BYTES = 256 * 1024;

/**
 * Receipts in PostgreSQL (bytea in receipt_contents), written in the transaction of the receipt's row: every node
 * of a cluster serves every receipt, and an upload that never commits leaves nothing behind (no sweep needed).
 */
export function postgresStore(): ReceiptStore {
  return {
    kind: 'postgres',

    async write() {
      // Nothing before the transaction: the bytes go in with the row (put).
    },

    async put(ex, accountId, sha256, bytes) {
      await ex
        .insertInto('receipt_contents')
        .values({ account_id: accountId, sha256, content: bytes })
        .onConflict((oc) => oc.columns(['account_id', 'sha256']).doNothing())
        .execute();
    },

    async read(ex, accountId, sha256, range) {
      const found = await ex
        .selectFrom('receipt_contents')
        .select(sql<number | string>`octet_length(content)`.as('size'))
        .where('account_id', '=', accountId)
        .where('sha256', '=', sha256)
        .executeTakeFirst();
      if (!found) return null;
      const size = Number(found.size);
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? size - 1, size - 1);
      // Streamed: a chunk is read (cut by PostgreSQL, only its bytes leave the database) when the client has taken
      // the one before, so a download holds one chunk in memory whatever the receipt's size.
      async function* chunks() {
        for (let at = start; at <= end; at += CHUNK_BYTES) {
          const length = Math.min(CHUNK_BYTES, end - at + 1);
          const row = await ex
            .selectFrom('receipt_contents')
            .select(sql<Buffer>`substring(content from ${at + 1} for ${length})`.as('part'))
            .where('account_id', '=', accountId)
            .where('sha256', '=', sha256)
            .executeTakeFirst();
          // Content-addressed bytes never change; gone mid-download, the download fails rather than end short.
          if (!row) throw new Error(`receipt content ${sha256} vanished while being read`);
          yield row.part;
        }
      }
      return Readable.from(chunks(), { objectMode: false });
    },

    async sweep() {
      return 0;
    },
  };
}
