import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type PgModule from 'pg';

const MARK = '/* svc:named */';

/**
 * Piece `pg-named-statements`: the end of a statement's text that has PostgreSQL keep it as a named (server-side
 * prepared) statement on each connection, planned once instead of at every run. For hot statements of constant text:
 * webhook delivery's due endpoints (a recursive skip scan: about 1 ms of planning on this machine against 0.2 ms of
 * execution), its claim and its outcome, and every prepared query that names its columns (`withPgName`, prepared.ts);
 * docs/performance.md. SQLite reads it as a comment.
 */
export const pgNamed: RawBuilder<unknown> = sql.raw(` ${MARK}`);

/** `text` marked as `pgNamed` marks it (prepared.ts marks the compiled text of a prepared query so). */
export const withPgName = (text: string): string => `${text} ${MARK}`;

const names = new Map<string, string>();

/** The statement's name: the same text is the same name on every connection and every process. */
function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `svc_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Has `client` send each statement whose text ends with the mark as a named statement (pg prepares it on the
 * connection the first time and then only binds and runs it). Only for a DATABASE_URL that reaches PostgreSQL
 * itself: a PgBouncer before 1.21 in transaction mode hands each transaction another server connection, where the
 * name is unknown (config.ts: DATABASE_NAMED_STATEMENTS). Invariant: a statement answers what it answers unnamed
 * (test/speed/pg-named-statements.test.ts); any other statement is passed on as it came.
 */
export function nameStatements(client: PgModule.PoolClient): void {
  const inner = client.query.bind(client) as (...args: unknown[]) => unknown;
  const query = (...args: unknown[]): unknown => {
    const [text, values, callback] = args;
    // (text, values) as Kysely sends a statement; (text, values, callback) as pg.Pool's query sends one.
    const plain = args.length === 2 || (args.length === 3 && typeof callback === 'function');
    if (plain && typeof text === 'string' && Array.isArray(values) && text.endsWith(MARK)) {
      return inner({ name: nameOf(text), text, values }, ...args.slice(2));
    }
    return inner(...args);
  };
  Object.assign(client, { query });
}
