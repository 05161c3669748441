import type { DialectName } from '../../src/db/database.js';

/** Dialects every suite runs on: DIALECTS=sqlite,postgres by default. */
export const DIALECTS = (process.env.DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter((d): d is DialectName => d === 'sqlite' || d === 'postgres');

/** A PostgreSQL server where tests may create and drop databases. */
export const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
