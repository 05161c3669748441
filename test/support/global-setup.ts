import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { DIALECTS, PG_URL } from './dialects.js';

/**
 * Builds dist/ unless it is current (the CLI and spawned-server tests run the real build), and checks PostgreSQL is
 * reachable. `npm ci` has built already, so a CI run builds once; scripts/build-if-changed.mjs compares a hash of
 * the sources with the last build's and serialises concurrent builds.
 */
export default async function setup(): Promise<void> {
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
}
