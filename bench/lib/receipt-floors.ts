import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { syncFolder } from '../../src/lib/durable.js';

/** Uploads (and floor writes) in flight at once: a few clients, as phones and an integration would send them. */
export const UPLOAD_CONCURRENCY = 4;

/**
 * A PDF as svc recognises it (by its first bytes), of `size` bytes, each different: no two are deduplicated. A
 * Uint8Array of its own ArrayBuffer: what fetch takes as a body, made before any clock starts.
 */
export function pdfOf(size: number): Uint8Array<ArrayBuffer> {
  const head = Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const tail = Buffer.from('\n%%EOF\n');
  return new Uint8Array(Buffer.concat([head, randomBytes(size - head.length - tail.length), tail]));
}

/** Runs `work` on each item, `concurrency` at a time; the seconds it took. */
export async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
  return (performance.now() - started) / 1000;
}

/**
 * The raw write floor of the same storage: each file written and fsynced under the data folder (SQLite's), and its
 * name with the folder.
 */
export async function fileFloor(dir: string, files: Uint8Array<ArrayBuffer>[]): Promise<number> {
  fs.mkdirSync(dir, { recursive: true });
  let n = 0;
  const seconds = await pool(files, UPLOAD_CONCURRENCY, async (bytes) => {
    const handle = await fs.promises.open(path.join(dir, `floor-${n++}`), 'wx');
    await handle.writeFile(bytes);
    await handle.sync();
    await handle.close();
    // As durable as svc's files: the new name flushed with its folder (files.store.ts).
    await syncFolder(dir);
  });
  fs.rmSync(dir, { recursive: true, force: true });
  return seconds;
}

/** The raw write floor on PostgreSQL: an INSERT of the same bytes (bytea, one commit each) through pg. */
export async function pgFloor(url: string, files: Uint8Array<ArrayBuffer>[]): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: UPLOAD_CONCURRENCY }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      return c;
    }),
  );
  try {
    await clients[0]!.query('create table if not exists bench_receipt_floor (id serial primary key, content bytea)');
    let next = 0;
    const started = performance.now();
    await Promise.all(
      clients.map(async (c) => {
        while (next < files.length) {
          const bytes = files[next++]!;
          await c.query('insert into bench_receipt_floor (content) values ($1)', [Buffer.from(bytes.buffer)]);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await clients[0]!.query('drop table bench_receipt_floor');
    return seconds;
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}
