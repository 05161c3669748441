import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { token } from './api.js';
import { captureServer, type Captured, type CaptureServer } from './capture.js';
import { openRaw, type Raw } from './data-floor.js';
import { serve, type Served } from './processes.js';
import { floorText, ratioText, targetText, verdict, type Scenario } from './targets.js';

/** What `npm run bench` was asked for (bench/run.ts reads the arguments). */
export interface Settings {
  root: string;
  /** The measured server's port; the capture server takes port + 2, the HTTP floor port + 1. */
  port: number;
  dialect: 'sqlite' | 'postgres';
  pgUrl: string;
  quick: boolean;
  values: number;
  records: number;
  duration: number;
}

export function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

/** The scenarios measured so far; each is printed as it is added, with the watched server's highest RSS. */
export interface Recorder {
  scenarios: Scenario[];
  add(s: Scenario): void;
  /** The server whose memory each scenario's line reports (none: no RSS in the line). */
  watch(server: Served | null): void;
}

export function recorder(): Recorder {
  const scenarios: Scenario[] = [];
  let watched: Served | null = null;
  return {
    scenarios,
    watch: (server) => {
      watched = server;
    },
    add(s) {
      scenarios.push(s);
      const rss = watched ? `, RSS ≤ ${watched.maxRssMb().toFixed(0)} MB` : '';
      const against = s.floor !== undefined ? ` | ${floorText(s)}, ${ratioText(s)}` : '';
      const goal = targetText(s) ? ` | target ${targetText(s)}: ${verdict(s)}` : '';
      log(
        `${s.name}: ${s.throughput.toFixed(0)} ${s.unit}${s.p50 !== undefined ? `, p50 ${s.p50} ms, p99 ${s.p99} ms` : ''}${rss}${against}${goal}`,
      );
    },
  };
}

/** A new database for one run: a temporary SQLite file, or a new PostgreSQL database dropped afterwards. */
export async function database(settings: Settings): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_bench_${randomBytes(4).toString('hex')}`;
  if (settings.dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
    return {
      url: `sqlite:${path.join(dir, `${name}.sqlite`)}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = new pg.Client({ connectionString: settings.pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(settings.pgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: settings.pgUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** Runs the `svc` command (bin/svc.js) with env and returns its output. */
export function svc(root: string, argv: string[], env: Record<string, string>): string {
  return execFileSync(process.execPath, [path.join(root, 'bin/svc.js'), ...argv], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

export interface Credentials {
  client_id: string;
  client_secret: string;
}

/** A bearer token of the bench's API client and the headers that carry it. */
export interface Client {
  bearer: string;
  auth: Record<string, string>;
}

/** The run as the scenarios see it: the measured server, its database, and the floors' helpers. */
export interface Bench {
  settings: Settings;
  env: Record<string, string>;
  dbUrl: string;
  creds: Credentials;
  /** The measured server (a new one after restart()). */
  readonly server: Served;
  add(s: Scenario): void;
  svc(argv: string[]): string;
  /** A new token on the measured server. */
  client(): Promise<Client>;
  /** Stops the measured server and starts it again on the same database. */
  restart(): Promise<void>;
  /** The highest RSS any measured server of this run reached. */
  maxRssMb(): number;
  /**
   * Runs work against a second server on the same database that logs every statement each request runs
   * (bench/lib/capture.ts); it is stopped again afterwards, so that it is not running while load runs.
   */
  capturing<T>(work: (c: CaptureServer, headers: Record<string, string>) => Promise<T>): Promise<T>;
  /** The pragmas the server set on its SQLite connection (captured by the last `capturing`; none on PostgreSQL). */
  pragmas(): readonly string[];
  /** Runs work on a bare driver connection to the database, opened as the server opens it. */
  onRaw<T>(work: (raw: Raw) => Promise<T>): Promise<T>;
  /** Logs what a captured request ran, one line (a statement repeated in a row counted, not repeated). */
  statementsOf(name: string, captured: Captured): void;
  stop(): Promise<void>;
}

export const ALL_SCOPES =
  'fields.write field_values.write accounting.record.read accounting.record.write accounting.record.admin accounting.record.review webhooks.write';

/** Makes the bench's API client, starts the measured server (dist/server.js) and watches its memory. */
export async function startBench(
  settings: Settings,
  dbUrl: string,
  env: Record<string, string>,
  rec: Recorder,
): Promise<Bench> {
  const { root, port } = settings;
  const creds = JSON.parse(
    svc(root, ['clients', 'create', '--account', 'bench', '--scopes', ALL_SCOPES], env),
  ) as Credentials;
  let server = await serve([path.join(root, 'dist/server.js')], env, port);
  rec.watch(server);
  let rssMax = 0;
  let pragmas: string[] = [];
  const headersOf = (bearer: string) => ({ authorization: `Bearer ${bearer}`, 'content-type': 'application/json' });
  return {
    settings,
    env,
    dbUrl,
    creds,
    get server() {
      return server;
    },
    add: rec.add,
    svc: (argv) => svc(root, argv, env),
    async client() {
      const bearer = await token(server.url, creds.client_id, creds.client_secret);
      return { bearer, auth: headersOf(bearer) };
    },
    async restart() {
      rssMax = Math.max(rssMax, server.maxRssMb());
      await server.stop();
      rec.watch(null);
      server = await serve([path.join(root, 'dist/server.js')], env, port);
      rec.watch(server);
    },
    maxRssMb: () => Math.max(rssMax, server.maxRssMb()),
    async capturing(work) {
      const c = await captureServer(root, env, port + 2);
      try {
        pragmas = c.pragmas();
        const bearer = await token(c.url, creds.client_id, creds.client_secret);
        return await work(c, headersOf(bearer));
      } finally {
        await c.stop();
      }
    },
    pragmas: () => pragmas,
    async onRaw(work) {
      const raw = await openRaw(dbUrl, pragmas);
      try {
        return await work(raw);
      } finally {
        await raw.close();
      }
    },
    statementsOf(name, captured) {
      const runs: { sql: string; n: number }[] = [];
      for (const st of captured.statements) {
        const sql = st.sql.replace(/\s+/g, ' ').trim().slice(0, 70);
        if (runs.at(-1)?.sql === sql) runs.at(-1)!.n++;
        else runs.push({ sql, n: 1 });
      }
      log(
        `${name} ran ${captured.statements.length} statements: ${runs.map((r) => (r.n > 1 ? `${r.n} × ${r.sql}` : r.sql)).join(' | ')}`,
      );
    },
    stop: () => server.stop(),
  };
}
