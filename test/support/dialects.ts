import { afterAll, beforeAll, describe, it } from 'vitest';
import type { DialectName } from '../../src/db/database.js';

/** Dialects every suite runs on: DIALECTS=sqlite,postgres by default. */
export const DIALECTS = (process.env.DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter((d): d is DialectName => d === 'sqlite' || d === 'postgres');

/** A PostgreSQL server where tests may create and drop databases. */
export const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface DialectFilter {
  /** The suite is about this dialect alone: it runs when DIALECTS selects it and is reported skipped otherwise. */
  only?: DialectName;
}

/**
 * The one loop over dialects: `suite` is declared inside `describe('<name> [<dialect>]')` once per dialect of
 * DIALECTS. Every per-dialect helper (describeEachDialect, describeLive, describeServed) is built on it, so
 * that DIALECTS means the same thing to every test file.
 */
export function eachDialect(name: string, suite: (dialect: DialectName) => void, filter: DialectFilter = {}): void {
  for (const dialect of filter.only ? [filter.only] : DIALECTS) {
    describe.skipIf(!DIALECTS.includes(dialect))(`${name} [${dialect}]`, () => suite(dialect));
  }
}

/**
 * `eachDialect` for a suite that needs a program of the machine (HAProxy, PgBouncer: installed by `.ci/run`): it
 * runs where the program is installed and always under CI, which must run it; elsewhere it is reported skipped.
 */
export function eachDialectNeeding(program: string, installed: () => boolean): typeof eachDialect {
  return installed() || process.env.CI
    ? eachDialect
    : (name) => describe.skip(`${name} (${program} is not installed)`, () => it(`runs with ${program}`, () => {}));
}

/**
 * `eachDialect` with something of its own per dialect (a test context, a live server, a served database):
 * `open(dialect)` before the suite's tests, `close()` after them, `current()` in between.
 */
export function eachDialectWith<R extends { close(): Promise<void> }>(
  name: string,
  open: (dialect: DialectName) => Promise<R>,
  suite: (current: () => R, dialect: DialectName) => void,
  filter: DialectFilter = {},
): void {
  eachDialect(
    name,
    (dialect) => {
      let opened: R | undefined;
      beforeAll(async () => {
        opened = await open(dialect);
      });
      afterAll(async () => {
        await opened?.close();
      });
      suite(() => {
        if (!opened) throw new Error(`${name} [${dialect}]: not opened`);
        return opened;
      }, dialect);
    },
    filter,
  );
}
