import fs from 'node:fs';
import http from 'node:http';
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
 * anything. HTTP=node: the same without Fastify, a `node:http` server whose handler gathers the body and stores it
 * (the least an upload over HTTP can cost in Node). Started by bench/scenarios/receipts.ts.
 */
const dir = process.env.DIR ?? '';
const pool = dir === '' ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 }) : null;
const TABLE = `bench_receipt_upload_floor_${process.env.HTTP === 'node' ? 'node' : 'fastify'}`;
if (pool) await pool.query(`create table if not exists ${TABLE} (id serial primary key, content bytea)`);
else fs.mkdirSync(dir, { recursive: true });

let n = 0;
async function store(bytes: Buffer): Promise<void> {
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
}

const port = Number(process.env.PORT);
let close: () => Promise<void>;
if (process.env.HTTP === 'node') {
  const server = http.createServer((request, response) => {
    if (request.method === 'GET') return void response.end('{}');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      store(Buffer.concat(chunks)).then(
        () => response.end('{}'),
        (error: unknown) => {
          response.statusCode = 500;
          response.end(String(error));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
} else {
  const app = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.get('/healthz', async () => ({}));
  app.post('/upload', async (request) => {
    await store(request.body as Buffer);
    return {};
  });
  await app.listen({ port, host: '127.0.0.1' });
  close = () => app.close();
}

const stop = async () => {
  await close();
  if (pool) {
    await pool.query(`drop table if exists ${TABLE}`);
    await pool.end();
  } else fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
