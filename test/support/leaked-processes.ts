import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** A process of this checkout that a test started and left running: a server, a CLI or a browser. */
export interface Leaked {
  pid: number;
  command: string;
  databaseUrl: string | null;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The processes of one run of the suite still running once it is done: servers, CLIs and Chromium browsers in this
 * checkout (their cwd) whose environment carries the run's mark (`SVC_TEST_RUN`, set by the global setup and
 * inherited by every worker and what it spawns; another run's processes carry another). Linux's /proc; elsewhere,
 * none are found.
 */
export function leakedProcesses(run: string): Leaked[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const leaked: Leaked[] = [];
  for (const name of pids) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) !== ROOT) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const serverOrCli = argv.some((arg) => /(^|\/)(dist\/server\.js|bin\/svc\.js)$/.test(arg));
      // A worker's Chromium (browser.ts's sharedBrowser): its browser process, not its renderers and helpers.
      const browser = /(^|\/)chromium$/.test(argv[0] ?? '') && !argv.some((arg) => arg.startsWith('--type='));
      if (!serverOrCli && !browser) continue;
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (!env.includes(`SVC_TEST_RUN=${run}`)) continue;
      const url = env.find((entry) => entry.startsWith('DATABASE_URL='));
      leaked.push({ pid, command: argv.join(' '), databaseUrl: url ? url.slice('DATABASE_URL='.length) : null });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return leaked;
}
