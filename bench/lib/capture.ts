import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { statementsOf, type Statement } from './capture-log.js';
import { serve, type Served } from './processes.js';

export interface Captured {
  /** The answer's body, parsed. */
  answer: unknown;
  /** Every statement the request ran, in order, with its parameters. */
  statements: Statement[];
}

export interface CaptureServer {
  url: string;
  /** Sends one request and returns its answer and the SQL it ran (it must succeed). */
  request(
    urlPath: string,
    init?: { method?: string; headers?: Record<string, string>; body?: string },
  ): Promise<Captured>;
  /** The pragmas the server set on its SQLite connection (`synchronous = FULL`, ...), in order. */
  pragmas(): string[];
  stop(): Promise<void>;
}

/**
 * A second server on the same database with bench/lib/sql-capture.ts preloaded: the measured server never
 * carries the patch. Requests are sent one at a time, each with its own tag.
 */
export async function captureServer(root: string, env: Record<string, string>, port: number): Promise<CaptureServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-sql-'));
  const log = path.join(dir, 'sql.jsonl');
  fs.writeFileSync(log, '');
  const preload = pathToFileURL(path.join(root, 'bench/lib/sql-capture.ts')).href;
  const server: Served = await serve(
    ['--import', 'tsx', '--import', preload, path.join(root, 'dist/server.js')],
    { ...env, BENCH_SQL_LOG: log },
    port,
  );
  let read = 0;
  let n = 0;
  const fresh = (): string => {
    const text = fs.readFileSync(log, 'utf8');
    const out = text.slice(read);
    read = text.length;
    return out;
  };
  const pragmaLines = statementsOf(fs.readFileSync(log, 'utf8'), 'pragma').map((s) => s.sql);
  return {
    url: server.url,
    async request(urlPath, init = {}) {
      const tag = `r${n++}`;
      fresh();
      const res = await fetch(`${server.url}${urlPath}`, {
        method: init.method ?? 'GET',
        headers: { ...init.headers, 'x-bench-capture': tag },
        body: init.body,
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`capture: ${init.method ?? 'GET'} ${urlPath} → ${res.status} ${text.slice(0, 300)}`);
      return { answer: text ? JSON.parse(text) : null, statements: statementsOf(fresh(), tag) };
    },
    pragmas: () => pragmaLines,
    async stop() {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
