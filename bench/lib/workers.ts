import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { parseCpuList } from './scaling.js';

/** The cpus this process may run on, read with taskset (util-linux); null when taskset is missing or fails. */
export function allowedCpus(): number[] | null {
  try {
    // "pid 123's current affinity list: 0,1"
    const out = execFileSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' });
    const list = /list:\s*(\S+)/.exec(out)?.[1];
    return list ? parseCpuList(list) : null;
  } catch {
    return null;
  }
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One GET on a connection of its own: node:cluster hands each new connection to the next worker. */
function probe(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

/**
 * Resolves once `workers` different processes have answered `url` with 200, each told apart by `identify`
 * (a set's primary hands connections round-robin to the workers that listen: all answer once all listen).
 */
export async function waitForWorkers(
  url: string,
  workers: number,
  identify: (answer: Answer) => string | undefined,
  timeoutMs = 60_000,
): Promise<void> {
  const seen = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  while (seen.size < workers) {
    try {
      const answer = await probe(url);
      const who = answer.status === 200 ? identify(answer) : undefined;
      if (who !== undefined) seen.add(who);
    } catch {
      // not yet listening
    }
    if (Date.now() > deadline) throw new Error(`${url}: ${seen.size} of ${workers} workers answered in time`);
    if (seen.size < workers) await new Promise((r) => setTimeout(r, 20));
  }
}

/** svc's worker: the per-process prefix of its request ids (src/http/request-id.ts: `req_` and 8 characters). */
export const svcWorker = (answer: Answer): string | undefined => {
  const id = answer.headers['x-request-id'];
  return typeof id === 'string' ? id.slice(0, 12) : undefined;
};

/** The floor's worker: its /pid answer (bench/floor-server.ts). */
export const floorWorker = (answer: Answer): string | undefined => answer.body || undefined;
