import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { ReceiptStore } from './receipts.store.js';

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
      // A range is cut by PostgreSQL: only its bytes leave the database.
      const content = range
        ? sql<Buffer>`substring(content from ${range.start + 1} for ${range.end - range.start + 1})`
        : sql<Buffer>`content`;
      const row = await ex
        .selectFrom('receipt_contents')
        .select(content.as('content'))
        .where('account_id', '=', accountId)
        .where('sha256', '=', sha256)
        .executeTakeFirst();
      return row ? Readable.from([row.content]) : null;
    },

    async sweep() {
      return 0;
    },
  };
}
