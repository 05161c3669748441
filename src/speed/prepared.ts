import { sql, type Compilable, type CompiledQuery, type QueryResult, type RawBuilder } from 'kysely';
import type { DialectName, Executor } from '../db/database.js';
import { withPgName } from './postgres-named.js';
import { isOn } from './switches.js';

const MARK = '\u0000svc-parameter:';

interface Compiled {
  query: CompiledQuery;
  /** For each parameter of the compiled query: the name of the value it takes, or null (a constant). */
  slots: (string | null)[];
}

/** Where a prepared query takes a value: a bound parameter of the type the place expects. */
export type Param<P> = <K extends keyof P & string>(name: K) => RawBuilder<P[K]>;

/**
 * A query of the hot path, built and compiled once per dialect and then run with new values: building and
 * compiling a Kysely query costs more than running it on SQLite. Answers the rows, or for a write without
 * RETURNING numAffectedRows (RETURNING is a large part of a one-row SQLite UPDATE's cost: docs/performance.md).
 *
 * `preparedQuery<{ id: string }>()((ex, param) => ex.selectFrom('t').where('id', '=', param('id')))`: `param`
 * stands for a value in comparisons, insert values and the like (a bound parameter whose value names it), never
 * in a place that changes the SQL text (a compile that finds one throws). Invariant: a run sends the SQL and
 * parameters a fresh build with the same values would (test/speed/prepared.test.ts). Piece `prepared` off: the query
 * is built and compiled anew for each run, as any other Kysely query.
 */
/**
 * A prepared query: run it with values; `each` runs a query that writes once per values in order, in the caller's
 * write transaction, and answers the rows changed in all. On SQLite (piece `prepared`) `each` runs the compiled
 * statement straight on the transaction's connection (`Executor.runEach`): a thousand one-row UPDATEs cost about a
 * third less than through Kysely one at a time (docs/performance.md); elsewhere it runs them one at a time.
 */
export interface PreparedQuery<P, Row> {
  (ex: Executor, values: P): Promise<QueryResult<Row>>;
  each(ex: Executor, values: readonly P[]): Promise<number>;
}

export function preparedQuery<P extends Record<string, unknown>>() {
  return <Row>(build: (ex: Executor, param: Param<P>) => Compilable<Row>): PreparedQuery<P, Row> => {
    const byDialect = new Map<DialectName, Compiled>();
    const param: Param<P> = <K extends keyof P & string>(name: K) => sql<P[K]>`${`${MARK}${name}`}`;
    const compile = (ex: Executor): Compiled => {
      const built: CompiledQuery = build(ex, param).compile();
      if (built.sql.includes(MARK)) throw new Error(`prepared query: a parameter became SQL text in ${built.sql}`);
      // Constant text: on PostgreSQL kept named on each connection (piece pg-named-statements, where it is on), unless
      // it answers `*`: a named statement keeps its result's columns, which a migration run meanwhile may change.
      const query =
        ex.dialect === 'postgres' && !SELECTS_ALL.test(built.sql) ? { ...built, sql: withPgName(built.sql) } : built;
      const slots = query.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(MARK) ? p.slice(MARK.length) : null,
      );
      return { query, slots };
    };
    const fresh = (ex: Executor, values: P) => {
      const value: Param<P> = <K extends keyof P & string>(name: K) => sql<P[K]>`${values[name]}`;
      const query = build(ex, value).compile();
      return run<Row>(ex, query, query.parameters);
    };
    const prepared = (ex: Executor, values: P) => {
      let compiled = byDialect.get(ex.dialect);
      if (!compiled) byDialect.set(ex.dialect, (compiled = compile(ex)));
      const { query, slots } = compiled;
      return run<Row>(
        ex,
        query,
        slots.map((slot, i) => (slot === null ? query.parameters[i] : values[slot])),
      );
    };
    let chosen: ((ex: Executor, values: P) => Promise<QueryResult<Row>>) | undefined;
    // The switch is read at the first run (after the entry point has set it), never again.
    const runOne = (ex: Executor, values: P) => (chosen ??= isOn('prepared') ? prepared : fresh)(ex, values);
    const each = async (ex: Executor, list: readonly P[]): Promise<number> => {
      if (ex.runEach && isOn('prepared')) {
        let compiled = byDialect.get(ex.dialect);
        if (!compiled) byDialect.set(ex.dialect, (compiled = compile(ex)));
        const { query, slots } = compiled;
        if (SELECT.test(query.sql)) throw new Error('prepared query: each() runs statements that write');
        return ex.runEach(
          query.sql,
          list.map((values) => slots.map((slot, i) => (slot === null ? query.parameters[i] : values[slot]))),
        );
      }
      let changed = 0;
      for (const values of list) changed += Number((await runOne(ex, values)).numAffectedRows ?? 0n);
      return changed;
    };
    return Object.assign(runOne, { each });
  };
}

const SELECT = /^\s*select\b/i;
/** `select *`, `"t".*`, `returning *`: a statement whose columns are the table's, whatever they are at the time. */
const SELECTS_ALL = /\bselect\s+\*|\.\*|\breturning\s+\*/i;

function run<Row>(ex: Executor, query: CompiledQuery, parameters: readonly unknown[]): Promise<QueryResult<Row>> {
  // PostgreSQL outside a transaction (piece `pg-direct-reads`): a read goes to the pool at once.
  if (ex.directRead && SELECT.test(query.sql)) return ex.directRead<Row>(query.sql, parameters);
  return ex.executeQuery<Row>({ ...query, parameters });
}
