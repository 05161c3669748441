import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/*
 * For the migrations alone, and frozen: a migration that has run must do the same thing on every later
 * install, so migrations import nothing of the live service (whose code moves on) but this file and Kysely.
 * Change nothing here that a migration already uses; add a new helper beside it instead.
 */

export function dialectOf(db: Kysely<unknown>): 'sqlite' | 'postgres' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Column type for identifiers and other keys compared in keyset pagination: byte order in both dialects
 * (PostgreSQL's default collation would order and compare them by locale rules).
 */
export function keyText(db: Kysely<unknown>): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`text collate "C"` : sql`text`;
}

/**
 * A migration's `up`, all or nothing on both dialects: Kysely runs PostgreSQL migrations in a transaction, and
 * SQLite's without one, so on SQLite the work gets its own (BEGIN IMMEDIATE).
 */
export function allOrNothing(migrate: (db: Kysely<any>) => Promise<void>): (db: Kysely<any>) => Promise<void> {
  return async (db) => {
    if (dialectOf(db) === 'postgres') await migrate(db);
    else await db.transaction().execute(migrate);
  };
}

/** A migration's `down`: svc migrations are forward-only. */
export async function forwardOnly(): Promise<void> {
  throw new Error('svc migrations are forward-only');
}

/**
 * What `svc migrate --plan` and the release notes (docs/operations.md, "Upgrades") say of a migration, exported
 * by each as `plan`. Online: safe to run while the service (the release before it) runs and takes writes: it only
 * adds tables, nullable columns or settings, in a time that does not grow with the data. Otherwise stop the service
 * first: it rewrites or backfills rows (writers wait for it, and rows the old release writes meanwhile miss the
 * backfill), builds an index over a table that grows with use (PostgreSQL's CREATE INDEX blocks that table's
 * writes; SQLite runs the whole migration in one write transaction), or moves columns the old release reads.
 */
export interface MigrationPlan {
  online: { readonly sqlite: boolean; readonly postgres: boolean };
  /** Existing tables it rewrites, backfills from or indexes: its time grows with their rows (the estimate's basis). */
  scans: readonly string[];
  /** The release note: what it does to existing data, and why it is (not) online. */
  note: string;
}
