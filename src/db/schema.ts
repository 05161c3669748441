import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import type { DialectName } from './dialect.js';

export function dialectOf(db: Kysely<unknown>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Column type for identifiers and other keys compared in keyset pagination: byte order in both dialects
 * (PostgreSQL's default collation would order and compare them by locale rules).
 */
export function keyText(db: Kysely<unknown>): RawBuilder<unknown> {
  return dialectOf(db) === 'postgres' ? sql`text collate "C"` : sql`text`;
}
