import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { DIALECTS, PG_URL } from './dialects.js';

/** Builds dist/ (the CLI tests run the real `svc` command) and checks PostgreSQL is reachable. */
export default async function setup(): Promise<void> {
  try {
    execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  } catch {
    // tsc still emits on type errors; `npm run typecheck` is the gate for those.
    process.stderr.write('global-setup: the TypeScript build reported errors (see above)\n');
  }
  if (DIALECTS.includes('postgres')) {
    const client = new pg.Client({ connectionString: PG_URL });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (error) {
      throw new Error(
        `PostgreSQL tests need a server at ${PG_URL} (set TEST_POSTGRES_URL, or DIALECTS=sqlite to skip them): ${(error as Error).message}`,
      );
    } finally {
      await client.end().catch(() => {});
    }
  }
}
