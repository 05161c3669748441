import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { afterEach, expect, it } from 'vitest';
import { leakedProcesses } from '../support/leaked-processes.js';
import { collect, ROOT } from '../support/processes.js';
import { until } from '../support/wait.js';

/**
 * The global teardown's check (support/leaked-processes.ts) against planted leaks: processes that look to /proc as a
 * server, a CLI and a worker's Chromium left running by this run, beside ones it must not name (another run's, another
 * checkout's, a Chromium's renderer). Each plant is an idle `node`, named by its argv0 and carrying the arguments it is
 * known by.
 */
const planted: { child: ChildProcess; exited: Promise<unknown> }[] = [];

afterEach(async () => {
  const plants = planted.splice(0);
  for (const { child } of plants) child.kill('SIGKILL');
  await Promise.all(plants.map((p) => p.exited));
});

/** A process that /proc shows as `argv0 ...args`, of run `run`, working in `cwd`; killed after the test. */
function plant(run: string, argv0: string, args: string[], cwd = ROOT): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)', '--', ...args], {
    argv0,
    cwd,
    env: { ...process.env, SVC_TEST_RUN: run, DATABASE_URL: `sqlite:///tmp/${argv0.length}.sqlite` },
  });
  planted.push({ child, exited: collect(child) });
  return child.pid!;
}

it('names the servers, CLIs and browsers a run left running, and nothing else', async () => {
  const run = randomUUID();
  const server = plant(run, `${ROOT}/dist/server.js`, []);
  const browser = plant(run, '/usr/bin/chromium', []);
  plant(run, '/usr/bin/chromium', ['--type=renderer']); // a renderer goes with its browser: not named
  plant(randomUUID(), '/usr/bin/chromium', []); // another run's
  plant(run, `${ROOT}/dist/server.js`, [], os.tmpdir()); // another checkout's (its cwd)
  const cli = plant(run, 'node', [`${ROOT}/bin/svc.js`, 'poll']);
  plant(run, 'node', ['poll']); // a process of the run that is none of the three
  // Every plant has become its command (spawned, then exec'd) before the check reads /proc once.
  await until('every plant runs', () =>
    planted.every(({ child }) => {
      try {
        return fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes('setInterval');
      } catch {
        return false;
      }
    }),
  );
  const named = leakedProcesses(run);
  expect(named.map((l) => l.pid).sort()).toEqual([server, browser, cli].sort());
  expect(named.find((l) => l.pid === server)).toMatchObject({ databaseUrl: expect.stringMatching(/^sqlite:/) });
});
