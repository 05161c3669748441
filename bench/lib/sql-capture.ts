/**
 * Preloaded into a second server (`node --import tsx --import bench/lib/sql-capture.ts dist/server.js`), never
 * into the measured one: logs every SQL statement a request runs, with its parameters, so that the data floors
 * replay exactly what the service ran rather than a guess at it (bench/lib/capture.ts reads the log).
 *
 * A request is tagged by its `x-bench-capture` header; statements run outside a request (webhook delivery,
 * maintenance) carry no tag and are not logged. The connection's pragmas are logged with the tag `pragma`, so
 * that a floor's connection has the service's durability settings. The drivers stay packages outside the
 * server's bundle (scripts/bundle-server.mjs), so patching them here patches the ones the server uses.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type PgModule from 'pg';
import { encodeParams } from './capture-log.js';

const file = process.env.BENCH_SQL_LOG;
if (!file) throw new Error('sql-capture: BENCH_SQL_LOG is not set');
const require = createRequire(import.meta.url);
const tags = new AsyncLocalStorage<string>();

function logLine(tag: string, sql: string, params: unknown[]): void {
  fs.appendFileSync(file!, `${JSON.stringify({ tag, sql, params: encodeParams(params) })}\n`);
}

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (this: http.Server, event: string, ...rest: unknown[]) {
  const request = rest[0] as http.IncomingMessage | undefined;
  const tag = event === 'request' ? request?.headers['x-bench-capture'] : undefined;
  if (typeof tag === 'string') return tags.run(tag, () => emit.call(this, event, ...rest));
  return emit.call(this, event, ...rest);
} as typeof emit;

const Sqlite: typeof BetterSqlite3 = require('better-sqlite3');
const prepare = Sqlite.prototype.prepare;
Sqlite.prototype.prepare = function (this: BetterSqlite3.Database, sql: string) {
  const statement = prepare.call(this, sql);
  return new Proxy(statement, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function' || !['run', 'get', 'all', 'iterate'].includes(String(key))) return value;
      return (...params: unknown[]) => {
        const tag = tags.getStore();
        if (tag !== undefined) logLine(tag, sql, params.length === 1 && Array.isArray(params[0]) ? params[0] : params);
        return (value as (...a: unknown[]) => unknown).apply(target, params);
      };
    },
  });
} as typeof prepare;
const pragma = Sqlite.prototype.pragma;
Sqlite.prototype.pragma = function (this: BetterSqlite3.Database, source: string, options?: { simple?: boolean }) {
  // Only settings (`name = value`): reads of a pragma change nothing a floor must copy.
  if (source.includes('=')) logLine('pragma', source, []);
  return pragma.call(this, source, options);
} as typeof pragma;

const pg: typeof PgModule = require('pg');
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: PgModule.Client, ...args: unknown[]) {
  const tag = tags.getStore();
  // The grant cache's LISTEN (src/speed/postgres-marks.ts) starts within the first request that asks for a mark,
  // but is no request's work.
  // A named statement (src/speed/postgres-named.ts) comes as { name, text, values }.
  const [first, second] = args;
  const named =
    typeof first === 'object' && first !== null && 'text' in first
      ? (first as { text: unknown; values?: unknown })
      : null;
  const text = typeof first === 'string' ? first : typeof named?.text === 'string' ? named.text : undefined;
  const values = named ? named.values : second;
  if (tag !== undefined && text !== undefined && !/^\s*listen\b/i.test(text)) {
    logLine(tag, text, Array.isArray(values) ? (values as unknown[]) : []);
  }
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;
