import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

/** The fault-injection files that run in-process (app.inject): no process killed, no database stopped. */
const IN_PROCESS_RELIABILITY = ['garbage', 'garbage.shard2', 'mass-assignment', 'scopes', 'tenants'].map(
  (name) => `test/reliability/${name}.test.ts`,
);

/**
 * The process-killing files run after the rest, three at a time: each starts its own servers on free ports (svc
 * nodes, HAProxy, PgBouncer, a private PostgreSQL), keeps its Redis keys apart (a rate-limit window of its own) and
 * waits for events rather than for time. Two at a time left the cores partly idle in that phase (its files wait for
 * kills, restarts and receivers). The file that stops the shared PostgreSQL server runs alone, last.
 */
const POSTGRES_STOPPED = 'test/reliability/outage-postgres.test.ts';

// One run, seven projects: `npm test` is `vitest run`; `vitest run --project api` (or console, sdk, unit,
// reliability-inprocess, reliability, reliability-pg-stop) runs one. The first five run
// together; the fault-injection files that stop databases and kill processes run after them (above).
//
// Workers: vitest's default is one fewer than the cores, a single worker on this 2-core machine, but a test file
// spends most of its time waiting (PostgreSQL, spawned servers, Chromium, argon2 on libuv's threads), so the
// files that can overlap do. TEST_WORKERS overrides it.
const workers = Number(process.env.TEST_WORKERS ?? 3);

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/file-isolation.ts'],
    sequence: { sequencer: LongestFirst },
    pool: 'forks',
    // The suite hashes hundreds of console passwords: at OWASP's argon2id floor rather than the default cost (a
    // third of the time here); spawned servers and CLIs inherit it. config.test.ts holds the default.
    env: { PASSWORD_HASH_MEMORY_KIB: '19456', PASSWORD_HASH_PASSES: '2' },
    // Ceilings for a test that hangs, not bounds on how fast one must be: a file that spawns the CLI a dozen times
    // took 45–60 s of a 60 s ceiling while the machine ran twenty processes at once (a test on a slow machine must
    // not fail). A hang still ends the file, three minutes later.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // A worker keeps its modules from one test file to the next (the app's import graph is most of a file's cost:
    // with a fresh module graph per file the suite spent more time importing than testing). Test files therefore
    // leave no module state behind: fake timers are restored, nothing is mocked at module level, and every app,
    // database and server a file opens it closes.
    isolate: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/**/*.test.ts'],
          exclude: ['test/reliability/**', 'test/console/**', 'test/sdk/**', 'test/unit/**', '**/node_modules/**'],
          maxWorkers: workers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], maxWorkers: workers, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'console',
          include: ['test/console/**/*.test.ts'],
          maxWorkers: workers,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'sdk', include: ['test/sdk/**/*.test.ts'], maxWorkers: workers, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          // Fuzzing and abuse through app.inject: long, but nothing in them needs the machine to itself.
          name: 'reliability-inprocess',
          include: IN_PROCESS_RELIABILITY,
          maxWorkers: workers,
          testTimeout: 300_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          exclude: [...IN_PROCESS_RELIABILITY, POSTGRES_STOPPED, '**/node_modules/**'],
          maxWorkers: 3,
          testTimeout: 300_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          // Stops the PostgreSQL server every other file uses: alone, last.
          name: 'reliability-pg-stop',
          include: [POSTGRES_STOPPED],
          maxWorkers: 1,
          testTimeout: 300_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
