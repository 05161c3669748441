import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { authService } from '../../src/modules/auth/auth.service.js';
import { ADMIN } from './accounting.js';
import { freePort, haproxyInstalled, startHaproxy, type Balancer } from './cluster.js';
import { eachDialectNeeding } from './dialects.js';
import { PrivatePostgres } from './private-postgres.js';
import { startServer, type RunningServer } from './processes.js';
import { HttpApi, sleep, type HttpResponse } from './reliability.js';
import { CEILING_MS, until } from './wait.js';

/**
 * Three svc nodes (`node dist/server.js`, one process each) on one PostgreSQL database and one Redis, behind
 * HAProxy with deploy/haproxy.cfg, as docs/operations.md describes. The database is on a PostgreSQL server of the
 * test's own (test/support/private-postgres.ts), which a test may stop and start.
 */
export const TOKEN_LIMIT = 20;
export const SIGN_IN_LIMIT = 8;
/** A rate-limit window of its own per run keeps this run's Redis counters apart from earlier ones. */
export const WINDOW = 80_000 + (randomBytes(2).readUInt16BE() % 6400);
/** Token requests of this run's clients come from an address of their own (a token budget is per address). */
const CLIENTS_ADDRESS = `198.51.100.${1 + (randomBytes(1)[0]! % 250)}`;

export async function token(
  base: string,
  creds: { client_id: string; client_secret: string },
  address = CLIENTS_ADDRESS,
) {
  const res = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
    }),
  });
  return res;
}

export async function accessToken(res: Response): Promise<string> {
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  const body: unknown = await res.json();
  if (typeof body !== 'object' || body === null || !('access_token' in body) || typeof body.access_token !== 'string')
    throw new Error('no access_token');
  return body.access_token;
}

export const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

export class Node {
  server: RunningServer | null = null;
  constructor(
    readonly port: number,
    readonly start: (port: number) => Promise<RunningServer>,
  ) {}
  get url() {
    return `http://127.0.0.1:${this.port}`;
  }
  /** Starts the node, again and again while it cannot (a start fails while PostgreSQL is down). */
  async up() {
    const deadline = Date.now() + CEILING_MS;
    for (;;) {
      try {
        this.server = await this.start(this.port);
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(200);
      }
    }
  }
  async kill() {
    const server = this.server;
    this.server = null;
    server?.child.kill('SIGKILL');
    await server?.exited;
  }
}

/** What the clients met on the way: HAProxy's own answers (no X-Request-Id), svc's 5xx, keys in use. */
const balancerAnswers: Record<number, number> = {};
export const met = {
  /** no answer at all (a node died with the connection) */
  networkErrors: 0,
  /** HAProxy's own answers: 502 (a node died mid-request), 503 (no node ready: PostgreSQL away, or all restarting) */
  balancer: balancerAnswers,
  inUse: 0,
  svc503: 0,
  svcOther5xx: new Array<string>(),
  retriedKeys: 0,
  replayed: 0,
};

/**
 * Sends until svc answers with something other than 503 or 409 IDEMPOTENCY_KEY_IN_USE: a request cut by a dying
 * node (a network error, or HAProxy's 502/503 without svc's X-Request-Id) is sent again, with its key.
 */
export async function untilAnswered(send: () => Promise<HttpResponse>, keyed = true): Promise<HttpResponse> {
  const deadline = Date.now() + CEILING_MS;
  let retried = false;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`no answer within ${CEILING_MS / 1000} s`);
    const res = await send().catch(() => null);
    if (res === null) met.networkErrors++;
    else if (res.headers['x-request-id'] === undefined) met.balancer[res.status] = (met.balancer[res.status] ?? 0) + 1;
    else if (res.status === 409 && res.body?.error_code === 'IDEMPOTENCY_KEY_IN_USE') met.inUse++;
    else if (res.status === 503) met.svc503++;
    else if (res.status >= 500) met.svcOther5xx.push(`${res.status} ${res.text.slice(0, 200)}`);
    else {
      if (keyed && retried) met.retriedKeys++;
      if (res.headers['idempotent-replayed'] === 'true') met.replayed++;
      return res;
    }
    retried = true;
    await sleep(50);
  }
}

export interface MultiNode {
  postgres: PrivatePostgres;
  db: Db;
  nodes: Node[];
  lb: Balancer;
  accountId: string;
  /** A client of the account through `base` (the balancer, or a node). */
  client(base: string): Promise<HttpApi>;
  /** Starts the nodes that are down, and resolves once HAProxy has all three in rotation again (rise 2 × 1 s). */
  allInRotation(): Promise<void>;
}

/** The suite `suite` over three nodes behind HAProxy (PostgreSQL only; skipped where HAProxy is not installed). */
export function describeMultiNode(name: string, suite: (cluster: () => MultiNode) => void): void {
  eachDialectNeeding('HAProxy', haproxyInstalled)(
    name,
    () => {
      let cluster: MultiNode | undefined;
      let postgres: PrivatePostgres | undefined;
      let db: Db | undefined;
      let nodes: Node[] = [];
      let lb: Balancer | undefined;
      beforeAll(async () => {
        postgres = await PrivatePostgres.create();
        const admin = openDatabase(loadConfig({ DATABASE_URL: postgres.url('postgres') }).database, { poolSize: 1 });
        await sql`create database svc`.execute(admin.direct);
        await admin.close();
        const url = postgres.url('svc');
        db = openDatabase(loadConfig({ DATABASE_URL: url }).database, { poolSize: 3 });
        await migrateToLatest(db);
        const env = {
          DATABASE_URL: url,
          REDIS_URL: 'redis://127.0.0.1:6379',
          TRUST_PROXY: 'loopback',
          TOKEN_RATE_LIMIT_MAX: String(TOKEN_LIMIT),
          RATE_LIMIT_WINDOW_SECONDS: String(WINDOW),
          SIGN_IN_RATE_LIMIT_MAX: String(SIGN_IN_LIMIT),
          RATE_LIMIT_MAX: '100000',
          WORKERS: '1',
        };
        const ports = [await freePort(), await freePort(), await freePort()];
        nodes = ports.map((port) => new Node(port, (p) => startServer({ ...env, PORT: String(p) })));
        await Promise.all(nodes.map((n) => n.up()));
        lb = await startHaproxy([`127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`, `127.0.0.1:${ports[2]}`]);
        const accountId = `acct_multi_${randomBytes(4).toString('hex')}`;
        const opened = { postgres, db, nodes, lb };
        cluster = {
          ...opened,
          accountId,
          async client(base) {
            const creds = await authService.createClient(opened.db, accountId, [...ADMIN, 'accounting.record.read']);
            const res = await token(base, creds);
            return new HttpApi(base, await accessToken(res), creds.account_id, creds.client_id);
          },
          async allInRotation() {
            await Promise.all(opened.nodes.filter((n) => n.server === null).map((n) => n.up()));
            await until('three nodes in rotation', async () => (await opened.lb.inRotation()).length === 3, {
              everyMs: 200,
            });
          },
        };
      });
      afterAll(async () => {
        await lb?.stop();
        await Promise.all(nodes.map((n) => n.kill()));
        await db?.close().catch(() => {});
        await postgres?.destroy();
      });
      suite(() => {
        if (!cluster) throw new Error('describeMultiNode: the nodes are not up yet (use it inside a test or hook)');
        return cluster;
      });
    },
    { only: 'postgres' },
  );
}
