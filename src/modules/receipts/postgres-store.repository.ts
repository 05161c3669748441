import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { ReceiptStore } from './receipts.store.js';

/**
 * How much of a receipt one statement of a download reads. A chunk in flight costs about five times its size (the
 * bytea's hex text as pg receives it, that text as a string, the bytes), and each download holds one or two while
 * its client reads: at 1 MiB, 100 concurrent downloads of 10 MB grew the server by 282 MB; a quarter of that
 * keeps them under 100 MB (bench --receipts, docs/performance.md).
 */
export const CHUNK_BYTES = 256 * 1024;

/**
 * Receipts in PostgreSQL (bytea in receipt_contents): every node of a cluster serves every receipt. The bytes are
 * inserted and committed on their own (`write`), before the receipt's row: the megabytes are flushed without the
 * record clock held, and uploads' inserts run side by side as the raw floor's do. An upload killed between the two
 * leaves a row of bytes no receipt names; `sweep` deletes those, at any time and on any node:
 * - the sweep locks its candidates (FOR UPDATE SKIP LOCKED) and then deletes those that no receipt names in a
 *   statement of its own, whose snapshot is taken after the locks: a receipt committed meanwhile is seen;
 * - the row's transaction locks the bytes' row (FOR KEY SHARE, `keep`) before it writes the receipt: a sweep that
 *   holds it makes it wait; one that deleted it first, it inserts the bytes again (it still has them).
 */
async function insert(ex: Executor, accountId: string, sha256: string, bytes: Buffer): Promise<void> {
  await ex
    .insertInto('receipt_contents')
    .values({ account_id: accountId, sha256, content: bytes })
    .onConflict((oc) => oc.columns(['account_id', 'sha256']).doNothing())
    .execute();
}

/** The bytes are whole: `size` bytes whose SHA-256 is their name (computed where they are, in PostgreSQL). */
const whole = (sha256: string, size: number) =>
  sql<boolean>`octet_length(receipt_contents.content) = ${size}
    and sha256(receipt_contents.content) = decode(${sha256}, 'hex')`;

export function postgresStore(): ReceiptStore {
  return {
    kind: 'postgres',

    async write(ex, accountId, sha256, bytes) {
      // Stored already but not whole (changed by hand): replaced by these bytes, which are.
      await ex
        .insertInto('receipt_contents')
        .values({ account_id: accountId, sha256, content: bytes })
        .onConflict((oc) =>
          oc
            .columns(['account_id', 'sha256'])
            .doUpdateSet({ content: (eb) => eb.ref('excluded.content') })
            .where(sql<boolean>`not (${whole(sha256, bytes.length)})`),
        )
        .execute();
    },

    async holds(ex, accountId, sha256, size) {
      const found = await ex
        .selectFrom('receipt_contents')
        .select(whole(sha256, size).as('whole'))
        .where('account_id', '=', accountId)
        .where('sha256', '=', sha256)
        .executeTakeFirst();
      return found?.whole === true;
    },

    async keep(ex, accountId, sha256, bytes) {
      const held = await sql`
        select 1 from receipt_contents where account_id = ${accountId} and sha256 = ${sha256} for key share`.execute(
        ex,
      );
      if (held.rows.length === 0) await insert(ex, accountId, sha256, bytes);
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

    async sweep(db) {
      return db.write(async (ex) => {
        const candidates = await sql<{ account_id: string; sha256: string }>`
          select c.account_id, c.sha256 from receipt_contents c
          where not exists (select 1 from receipts r where r.account_id = c.account_id and r.sha256 = c.sha256)
          for update skip locked`.execute(ex);
        let removed = 0;
        for (const c of candidates.rows) {
          const gone = await sql`
            delete from receipt_contents c
            where c.account_id = ${c.account_id} and c.sha256 = ${c.sha256}
              and not exists (select 1 from receipts r where r.account_id = c.account_id and r.sha256 = c.sha256)`.execute(
            ex,
          );
          removed += Number(gone.numAffectedRows ?? 0);
        }
        return removed;
      });
    },
  };
}
