import { parseArgs } from 'node:util';
import type { Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { migrationPlan, releaseNotes } from '../db/migration-plan.js';
import { CliUsageError } from './usage.js';

type Out = (line: string) => void;

/**
 * `svc migrate` runs the pending migrations; `--plan` lists them without running any (each online or not, and the
 * rows it works through); `--notes` prints every migration's release note (docs/operations.md carries the same).
 */
export async function migrate(args: string[], out: Out, open: (options: { existing: boolean }) => Db): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { plan: { type: 'boolean' }, notes: { type: 'boolean' } },
    strict: true,
  });
  if (values.plan && values.notes) throw new CliUsageError('give --plan or --notes, not both');
  if (values.notes) {
    out(releaseNotes());
    return;
  }
  // A plan applies nothing, so it has nothing to say of a database that is not there (a mistyped path); migrate itself
  // makes the database on a first start, as the server does.
  const db = open({ existing: values.plan === true });
  try {
    out(JSON.stringify(values.plan ? await migrationPlan(db) : { applied: await migrateToLatest(db) }));
  } finally {
    await db.close();
  }
}
