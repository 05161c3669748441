import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { CEILING_MS } from './wait.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for a child: the parent's, minus settings that would leak into the child, plus `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'PORT', 'HOST', 'REDIS_URL', 'LOG_LEVEL', 'RATE_LIMIT_MAX', 'WORKERS'])
    delete base[name];
  return { ...base, ...env };
}

/** Runs `node ...args` in the repository's root to its end, with `env` given to the child alone. */
export function node(args: string[], env: Record<string, string>): Promise<Exited> {
  return collect(spawn(process.execPath, args, { cwd: ROOT, env: childEnv(env) }));
}

/** Runs `node <script> ...args`, the script named from the repository's root. */
export const runNode = (script: string, args: string[], env: Record<string, string>) =>
  node([path.join(ROOT, script), ...args], env);

/** A new directory of the system's temporary directory, removed when the current test finishes. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function collect(child: ChildProcess): Promise<Exited> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** `svc ...` as an operator runs it. */
export const svc = (args: string[], env: Record<string, string>) => runNode('bin/svc.js', args, env);

export interface RunningServer {
  url: string;
  child: ChildProcess;
  exited: Promise<Exited>;
}

/**
 * Spawns `node dist/server.js` on a free port and resolves once it logs that it listens; `as`: another user's ids for
 * the process (a test run by root that needs what root may not be refused).
 */
export async function startServer(
  env: Record<string, string>,
  as: Pick<SpawnOptions, 'uid' | 'gid'> = {},
): Promise<RunningServer> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/server.js')], {
    cwd: ROOT,
    // One process unless a test asks for more: SIGKILL and the "address" line then concern the server itself.
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WORKERS: '1', ...env }),
    ...as,
  });
  const exited = collect(child);
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${buffer}`)), CEILING_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /"address":"(http:\/\/[^"]+)"/.exec(buffer);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`server exited early (${e.code}): ${e.stderr}${buffer}`));
    });
  });
  return { url, child, exited };
}
