import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv, collect, ROOT, type Exited, type RunningServer } from './processes.js';
import { CEILING_MS } from './wait.js';

/**
 * Process sets for the multi-process tests: `node dist/server.js` with WORKERS (the cluster's primary and its
 * workers, read from the primary's log), and HAProxy in front of several nodes with deploy/haproxy.cfg.
 */

export interface ClusterServer extends RunningServer {
  /** Everything the set wrote to stdout so far (the primary's lines and the workers'). */
  output(): string;
  /** The pid of the worker now in each slot. */
  workerPids(): number[];
  /** Resolves once stdout matches `pattern` (searched from `from`, an offset in output()). */
  waitFor(pattern: RegExp, from?: number, ms?: number): Promise<RegExpExecArray>;
}

/** A port nobody listens on at the moment of asking. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Spawns `node dist/server.js` (default WORKERS=2) and resolves once the primary says every worker listens (or,
 * with WORKERS=1, once the server does).
 */
export async function startCluster(env: Record<string, string>): Promise<ClusterServer> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/server.js')], {
    cwd: ROOT,
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKERS: '2', ...env }),
  });
  const exited = collect(child);
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  let ended: Exited | null = null;
  void exited.then((e) => (ended = e));

  const waitFor = async (pattern: RegExp, from = 0, ms = CEILING_MS): Promise<RegExpExecArray> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const match = new RegExp(pattern.source, pattern.flags).exec(stdout.slice(from));
      if (match) return match;
      if (ended) throw new Error(`server exited (${ended.code ?? ended.signal}) before ${pattern}: ${ended.stderr}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${ms} ms in:\n${stdout}`);
      await sleep(20);
    }
  };
  const single = env.WORKERS === '1';
  const listening = await waitFor(
    single ? /"address":"(http:\/\/[^"]+)"/ : /"address":"(http:\/\/[^"]+)","workers":\d+[^\n]*svc is listening/,
  );
  const workerPids = () => {
    const pids: number[] = [];
    for (const m of stdout.matchAll(/"worker":(\d+),"worker_pid":(\d+),"msg":"worker listening"/g)) {
      pids[Number(m[1])] = Number(m[2]);
    }
    return pids;
  };
  return { url: listening[1]!, child, exited, output: () => stdout, workerPids, waitFor };
}

export const haproxyInstalled = (): boolean => spawnSync('haproxy', ['-v']).status === 0;

export interface Balancer {
  url: string;
  /** HAProxy's log (one line per request, and its health-check events). */
  output(): string;
  /** The servers in rotation now (UP in HAProxy's runtime API: `show stat`), by name: node1, node2, node3. */
  inRotation(): Promise<string[]>;
  stop(): Promise<void>;
}

/** HAProxy (foreground) with deploy/haproxy.cfg, its three servers at `nodes` (host:port each). */
export async function startHaproxy(nodes: [string, string, string]): Promise<Balancer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-haproxy-'));
  const child = spawn('haproxy', ['-db', '-f', path.join(ROOT, 'deploy/haproxy.cfg')], {
    env: {
      ...process.env,
      SVC_LB_BIND: `127.0.0.1:${port}`,
      SVC_LB_ADMIN: path.join(dir, 'admin.sock'),
      SVC_LB_LOG: 'stdout',
      SVC_NODE1: nodes[0],
      SVC_NODE2: nodes[1],
      SVC_NODE3: nodes[2],
    },
  });
  const exited = collect(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let early: Exited | null = null;
  void exited.then((e) => (early = e));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + CEILING_MS;
  for (;;) {
    if (early) throw new Error(`haproxy exited: ${(early as Exited).stderr}`);
    const ok = await fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error('haproxy did not start');
    await sleep(50);
  }
  const admin = path.join(dir, 'admin.sock');
  return {
    url,
    output: () => output,
    async inRotation() {
      const stat = await new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = net.connect(admin);
        socket.on('connect', () => socket.write('show stat\n'));
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      const [header, ...rows] = stat.split('\n').filter((line) => line.trim() !== '');
      const columns = header!.replace(/^# /, '').split(',');
      const [proxy, server, status] = ['pxname', 'svname', 'status'].map((c) => columns.indexOf(c));
      return rows
        .map((row) => row.split(','))
        .filter((cells) => cells[proxy!] === 'svc' && /^node\d$/.test(cells[server!]!) && cells[status!] === 'UP')
        .map((cells) => cells[server!]!);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
