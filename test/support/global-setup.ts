import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DIALECTS, PG_URL } from './dialects.js';
import { ensureTemplate } from './database-templates.js';
import { leakedProcesses } from './leaked-processes.js';

/**
 * Builds dist/ unless it is current (the CLI and spawned-server tests run the real build), and checks PostgreSQL is
 * reachable. `npm ci` has built already, so a CI run builds once; scripts/build-if-changed.mjs compares a hash of
 * the sources with the last build's and serialises concurrent builds.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // This run's mark, inherited by the workers and every process they start (leaked-processes.ts); set once (vitest
  // runs this setup once per project).
  process.env.SVC_TEST_RUN ??= randomUUID();
  // A failed build fails the run: the spawned-server tests would otherwise run an older dist/.
  execFileSync(process.execPath, ['scripts/build-if-changed.mjs'], { stdio: 'inherit' });
  if (DIALECTS.includes('postgres')) {
    const client = new pg.Client({ connectionString: PG_URL });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (error) {
      throw new Error(
        `PostgreSQL tests need a server at ${PG_URL} (set TEST_POSTGRES_URL, or DIALECTS=sqlite to skip them): ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    } finally {
      await client.end().catch(() => {});
    }
  }
  // Migrated once per run (or while the migrations are unchanged): each test database is a copy.
  for (const dialect of DIALECTS) await ensureTemplate(dialect);
  return teardown;
}

/**
 * Every server and CLI a test starts, it stops: one left running holds a port, a database and memory after the run
 * (two sandbox servers outlived every CI run before this check). One still ending (signalled, its exit not awaited)
 * is given a grace of GRACE_MS (a server draining a request may take its request timeout and more); those still
 * running then are killed, and fail the run, named.
 */
const GRACE_MS = 60_000;

async function teardown(): Promise<void> {
  const run = process.env.SVC_TEST_RUN ?? '';
  let leaked = leakedProcesses(run);
  for (let waited = 0; leaked.length > 0 && waited < GRACE_MS; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    leaked = leakedProcesses(run);
  }
  if (leaked.length === 0) return;
  for (const { pid } of leaked) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
  const list = leaked.map((p) => `  pid ${p.pid}: ${p.command} (DATABASE_URL=${p.databaseUrl ?? 'unset'})`);
  // vitest reports a teardown's error but still exits 0: the exit code is set here.
  process.exitCode = 1;
  throw new Error(`test processes left running after the suite (killed now):\n${list.join('\n')}`);
}
