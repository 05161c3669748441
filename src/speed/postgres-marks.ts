import type PgModule from 'pg';
import type { ChangeMark } from '../db/database.js';
import { listenOn } from '../db/postgres-listen.js';
import { nowMicros } from '../lib/clock.js';
import { isOn } from './switches.js';

/** The channel every node hears a change of grants on (a client revoked, a token deleted or expired, scopes…). */
export const GRANTS_CHANNEL = 'svc_grants';

/**
 * How long a grant read on PostgreSQL may answer from memory at most: the bound of staleness across nodes when a
 * notification is late or lost (a listener that died unseen, a PgBouncer in transaction mode between the node and
 * the server, a change made by another program). Documented in docs/performance.md and docs/operations.md.
 */
export const PG_GRANT_BOUND_MICROS = 1_000_000;

/**
 * What a statement's text tells of grants: a write of the tables a grant is read from (`findGrant`: access_tokens,
 * oauth_clients, accounts) other than an INSERT (a new row never makes a kept grant wrong: only grants found are
 * kept). Any other statement that is not a SELECT may still write (a CTE, a function): it moves this node's mark.
 */
const GRANT_WRITE =
  /^\s*(?:update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?"?(access_tokens|oauth_clients|accounts)"?/i;
const READ = /^\s*select\b/i;
const BEGIN = /^\s*(?:begin|start\s+transaction)\b/i;
const COMMIT = /^\s*(?:commit|end)\b/i;
const ROLLBACK = /^\s*rollback\s*(?:;?\s*)$/i;
const NOTIFY = `select pg_notify('${GRANTS_CHANNEL}', '')`;

/** This node's side of PostgreSQL's change mark (`ChangeMark`), shared by the pool's clients and the listener. */
export interface PgMarkState {
  /** Moves after every statement of this node that may write, and after every notification heard. */
  generation: number;
  /** The listener holds LISTEN on the channel: without it, nothing is answered from memory. */
  listening: boolean;
}

/**
 * Watches every statement a pooled client runs (always, whatever the switches: a node that caches nothing still
 * tells the others). Two duties:
 * - after a statement that may write has finished (a COMMIT included), this node's generation moves: a grant kept
 *   before it is not answered again, so a revocation made through this node is seen by its very next request;
 * - a write of a grant's tables sends `pg_notify` on GRANTS_CHANNEL: inside its transaction, right before its
 *   COMMIT (PostgreSQL delivers it with the commit, never for a rollback), or, outside a transaction, right after it.
 */
export function watchStatements(client: PgModule.PoolClient, state: PgMarkState): void {
  const original = client.query.bind(client);
  const query = (...args: unknown[]): unknown => Reflect.apply(original, client, args);
  /** Its promise's settling moves the generation; a cursor (no promise) is a read, passed on as it is. */
  const moving = (result: unknown): unknown =>
    result instanceof Promise
      ? result.then(
          (r: unknown) => {
            state.generation++;
            return r;
          },
          (error: unknown) => {
            state.generation++;
            throw error;
          },
        )
      : result;
  const notify = () => query(NOTIFY);
  let inTransaction = false;
  let grantsWritten = false;
  const watched = (...args: unknown[]): unknown => {
    const first = args[0];
    const text =
      typeof first === 'string'
        ? first
        : typeof first === 'object' && first !== null && 'text' in first && typeof first.text === 'string'
          ? first.text
          : '';
    // A read, or the callback form (pg's own): untouched.
    if (READ.test(text) || typeof args.at(-1) === 'function') return query(...args);
    if (BEGIN.test(text)) {
      inTransaction = true;
      grantsWritten = false;
      return query(...args);
    }
    if (COMMIT.test(text) || ROLLBACK.test(text)) {
      const withNotify = COMMIT.test(text) && grantsWritten;
      inTransaction = false;
      grantsWritten = false;
      if (!withNotify) return moving(query(...args));
      // Should the notification fail (the transaction already aborted), the COMMIT still runs and answers as before.
      const commit = () => query(...args);
      return moving(Promise.resolve(notify()).then(commit, commit));
    }
    if (GRANT_WRITE.test(text)) {
      if (inTransaction) {
        grantsWritten = true;
        return moving(query(...args));
      }
      return moving(
        Promise.resolve(query(...args)).then(async (r: unknown) => {
          await notify();
          return r;
        }),
      );
    }
    return moving(query(...args));
  };
  Object.defineProperty(client, 'query', { value: watched, configurable: true, writable: true });
}

/**
 * A connection of its own that LISTENs on GRANTS_CHANNEL (piece `grant-cache` on PostgreSQL): each notification moves
 * the generation; while it is not listening (connecting, lost, reconnecting a second later) there is no mark, so
 * nothing is answered from memory. It must reach PostgreSQL itself: through a PgBouncer in transaction mode its
 * LISTEN hears nothing, and only PG_GRANT_BOUND_MICROS bounds what a node keeps; DATABASE_LISTEN_URL gives it a
 * direct URL when DATABASE_URL goes through one.
 */
export function listenForGrants(pg: typeof PgModule, url: string, state: PgMarkState): { close(): Promise<void> } {
  return listenOn(pg, url, GRANTS_CHANNEL, {
    notified: () => {
      state.generation++;
    },
    listening: () => {
      state.generation++;
      state.listening = true;
    },
    lost: () => {
      state.listening = false;
      state.generation++;
    },
  });
}

/**
 * The change mark of PostgreSQL's `Db.direct` (the grant cache's): this node's generation and the current period of
 * PG_GRANT_BOUND_MICROS, or undefined while the listener is not listening (or the piece is off). A grant kept under a
 * mark answers until a statement of this node may have written, a notification is heard, or the period ends.
 * `listen` is called once, with the first mark asked for.
 */
export function pgChangeMark(state: PgMarkState, listen: () => void): ChangeMark | undefined {
  if (!isOn('grant-cache')) return undefined;
  let started = false;
  return () => {
    if (!started) {
      // The listener starts with the first mark asked for (a server's first authenticated request), so that a
      // command (`svc …`) or a background connection opens no connection of its own for it.
      started = true;
      listen();
    }
    return state.listening ? `${state.generation}:${Math.floor(nowMicros() / PG_GRANT_BOUND_MICROS)}` : undefined;
  };
}
