import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type PgModule from 'pg';

const MARK = '/* svc:named */';
/** What a marked statement's text ends with (`pgNamed` in a `sql` fragment, `withPgName` on a compiled text). */
const SUFFIX = ` ${MARK}`;

/**
 * Piece `pg-named-statements`: the end of a statement's text that has PostgreSQL keep it as a named (server-side
 * prepared) statement on each connection, planned once instead of at every run. For hot statements of constant text:
 * webhook delivery's due endpoints (a recursive skip scan: about 1 ms of planning on this machine against 0.2 ms of
 * execution), its claim and its outcome, and every prepared query that names its columns (`withPgName`, prepared.ts);
 * docs/performance.md. SQLite reads it as a comment.
 */
export const pgNamed: RawBuilder<unknown> = sql.raw(SUFFIX);

/** `text` marked as `pgNamed` marks it (prepared.ts marks the compiled text of a prepared query so). */
export const withPgName = (text: string): string => `${text}${SUFFIX}`;

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

/** Whether a pool still names its statements: shared by its connections, turned off by a pooler's refusal (below). */
export interface NamingState {
  on: boolean;
}

/** The statement's name is unknown to the server connection, or already taken there: a pooler between (see below). */
const POOLED = new Set(['26000', '42P05']);
/** "cached plan must not change result type": a migration changed the statement's result under this process. */
const STALE = '0A000';

const codeOf = (error: unknown): unknown =>
  typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;

/**
 * Has `client` send each statement whose text ends with the mark as a named statement (pg prepares it on the
 * connection the first time and then only binds and runs it). Only for a DATABASE_URL that reaches PostgreSQL
 * itself: a PgBouncer before 1.21 in transaction mode hands each transaction another server connection, where the
 * name is unknown (config.ts: DATABASE_NAMED_STATEMENTS). Invariant: a statement answers what it answers unnamed
 * (test/speed/pg-named-statements.test.ts); any other statement is passed on as it came. Two failures heal:
 * - the name unknown to the server connection or taken there (26000, 42P05: a pooler that cannot carry names, set up
 *   without DATABASE_NAMED_STATEMENTS=false): the statement fails, and from then on the pool names nothing;
 * - the statement's result changed under it (0A000, a migration run meanwhile): it fails once, and this connection
 *   prepares it again under a new name the next time.
 */
export function nameStatements(client: PgModule.PoolClient, state: NamingState): void {
  const inner = client.query.bind(client) as (...args: unknown[]) => unknown;
  /** The texts whose named statement went stale on this connection, and how many times. */
  const renamed = new Map<string, number>();
  const failed = (text: string) => (error: unknown) => {
    const code = codeOf(error);
    if (typeof code === 'string' && POOLED.has(code)) state.on = false;
    if (code === STALE) renamed.set(text, (renamed.get(text) ?? 0) + 1);
  };
  const query = (...args: unknown[]): unknown => {
    const [text, values, callback] = args;
    // (text, values) as Kysely sends a statement; (text, values, callback) as pg.Pool's query sends one.
    const plain = args.length === 2 || (args.length === 3 && typeof callback === 'function');
    if (!state.on || !plain || typeof text !== 'string' || !Array.isArray(values) || !text.endsWith(SUFFIX)) {
      return inner(...args);
    }
    const generation = renamed.get(text) ?? 0;
    const named = { name: generation === 0 ? nameOf(text) : `${nameOf(text)}_${generation}`, text, values };
    const onError = failed(text);
    if (typeof callback === 'function') {
      return inner(named, (error: unknown, result: unknown) => {
        if (error) onError(error);
        Reflect.apply(callback, undefined, [error, result]);
      });
    }
    const result = inner(named);
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        onError(error);
        throw error;
      });
    }
    return result;
  };
  Object.assign(client, { query });
}
