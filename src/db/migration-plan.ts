import { Migrator, sql } from 'kysely';
import type { Db, Executor } from './database.js';
import { MIGRATIONS } from './migrate.js';

export interface PlannedMigration {
  name: string;
  /** Safe while the service runs (on this database's dialect); false: stop the service first. */
  online: boolean;
  /** Rows now in each table it rewrites, backfills from or indexes (null: a pending migration before it creates it). */
  rows: Record<string, number | null>;
  note: string;
}

export interface MigrationPlanReport {
  dialect: Db['dialect'];
  applied: number;
  pending: PlannedMigration[];
  /** Whether any pending migration needs the service stopped. */
  stop_service: boolean;
  /**
   * Pending migrations that sort before one already applied (a database made between two merges that landed their
   * migrations out of order): `svc migrate` runs them too, in name order, after the applied ones.
   */
  out_of_order: string[];
  /** Applied migrations this svc does not know: the database was written by a newer svc. */
  unknown: string[];
}

async function rowsOf(ex: Executor, table: string): Promise<number | null> {
  const exists =
    ex.dialect === 'sqlite'
      ? await sql`select 1 as x from sqlite_master where type = 'table' and name = ${table}`.execute(ex)
      : await sql`select 1 as x where to_regclass(${table}) is not null`.execute(ex);
  if (exists.rows.length === 0) return null;
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(ex);
  return Number(rows[0]!.n);
}

/** What `svc migrate` would do to `db`: its pending migrations, each online or not, with the rows it works through. */
export async function migrationPlan(db: Db): Promise<MigrationPlanReport> {
  const migrator = new Migrator({ db: db.direct, provider: { getMigrations: async () => MIGRATIONS } });
  const known = await migrator.getMigrations();
  const appliedNames = known.filter((m) => m.executedAt !== undefined).map((m) => m.name);
  const lastApplied = appliedNames.at(-1);
  let unknown: string[] = [];
  const table = await rowsOf(db.direct, 'kysely_migration');
  if (table !== null) {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.direct);
    unknown = rows.map((r) => r.name).filter((name) => !(name in MIGRATIONS));
  }
  const pending: PlannedMigration[] = [];
  for (const { name, executedAt } of known) {
    if (executedAt !== undefined) continue;
    const { plan } = MIGRATIONS[name]!;
    const rows: Record<string, number | null> = {};
    for (const scanned of plan.scans) rows[scanned] = await rowsOf(db.direct, scanned);
    pending.push({ name, online: plan.online[db.dialect], rows, note: plan.note });
  }
  return {
    dialect: db.dialect,
    applied: appliedNames.length,
    pending,
    stop_service: pending.some((m) => !m.online),
    out_of_order: lastApplied === undefined ? [] : pending.filter((m) => m.name < lastApplied).map((m) => m.name),
    unknown,
  };
}

const yesNo = (online: boolean) => (online ? 'online' : 'stop the service');

/** The release notes of every migration, as the Markdown table docs/operations.md carries (a test compares them). */
export function releaseNotes(): string {
  const lines = ['| Migration | SQLite | PostgreSQL | Time grows with | Note |', '| --- | --- | --- | --- | --- |'];
  for (const [name, { plan }] of Object.entries(MIGRATIONS)) {
    const scans = plan.scans.length === 0 ? '—' : plan.scans.map((t) => `\`${t}\``).join(', ');
    lines.push(
      `| \`${name}\` | ${yesNo(plan.online.sqlite)} | ${yesNo(plan.online.postgres)} | ${scans} | ${plan.note} |`,
    );
  }
  return lines.join('\n');
}
