import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

export interface Served {
  url: string;
  child: ChildProcess;
  /** Highest resident set size seen since start, in MB (sampled every 100 ms from /proc). */
  maxRssMb(): number;
  resetRss(): void;
  startupMs: number;
  stop(): Promise<void>;
}

function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

async function waitFor(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not yet listening
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer in time`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Starts `node <nodeArgs>` with env, waits until `readyPath` answers 200, and samples its memory. `prefix` runs
 * node through another command that execs it (`taskset -c 0`): the pid is node's.
 */
export async function serve(
  nodeArgs: string[],
  env: Record<string, string>,
  port: number,
  readyPath = '/healthz',
  prefix: string[] = [],
): Promise<Served> {
  const started = performance.now();
  const [command, ...args] = [...prefix, process.execPath, ...nodeArgs];
  const child = spawn(command!, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A bench that fails half-way must not leave its servers running (they hold the port and the database).
  const orphaned = () => child.kill('SIGKILL');
  process.once('exit', orphaned);
  child.once('exit', () => process.off('exit', orphaned));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}${readyPath}`, Date.now() + 120_000);
  const startupMs = performance.now() - started;
  let max = 0;
  const timer = setInterval(() => {
    max = Math.max(max, rssMb(child.pid!));
  }, 100);
  return {
    url,
    child,
    startupMs,
    maxRssMb: () => Math.max(max, rssMb(child.pid!)),
    resetRss: () => {
      max = 0;
    },
    async stop() {
      clearInterval(timer);
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
