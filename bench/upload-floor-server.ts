import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import pg from 'pg';
import { syncFolder } from '../src/lib/durable.js';

/**
 * A bare HTTP upload (issue 32, reported beside the receipts' raw write floor): a Fastify route that takes the raw
 * body as bytes and stores it as the raw floor does, then answers `{}` — nothing else: no authentication, hooks,
 * schema, hash, type check or row. DIR set: written and flushed as a file under it (SQLite's receipts are files
 * under the data folder); DATABASE_URL set: an INSERT of the bytes (bytea) through a `pg.Pool` of 10 (svc's
 * DATABASE_POOL_SIZE) into a table of its own. What an upload over HTTP costs on this machine before svc does
 * anything. Started by bench/scenarios/receipts.ts.
 */
const dir = process.env.DIR ?? '';
const pool = dir === '' ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 }) : null;
const TABLE = 'bench_receipt_upload_floor';
if (pool) await pool.query(`create table if not exists ${TABLE} (id serial primary key, content bytea)`);
else fs.mkdirSync(dir, { recursive: true });

const app = Fastify({ bodyLimit: 64 * 1024 * 1024 });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
let n = 0;
app.get('/healthz', async () => ({}));
app.post('/upload', async (request) => {
  const bytes = request.body as Buffer;
  if (pool) await pool.query(`insert into ${TABLE} (content) values ($1)`, [bytes]);
  else {
    const handle = await fs.promises.open(path.join(dir, `upload-${process.pid}-${n++}`), 'wx');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncFolder(dir);
  }
  return {};
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });

const stop = async () => {
  await app.close();
  if (pool) {
    await pool.query(`drop table if exists ${TABLE}`);
    await pool.end();
  } else fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
