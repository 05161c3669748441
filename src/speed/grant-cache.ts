import type { Executor } from '../db/database.js';
import { isOn } from './switches.js';

/** A grant as the cache keeps it: what the caller may do, and until when. */
export interface Grant<Context> {
  context: Context;
  expiresAt: number;
}

/**
 * Grants of recently used tokens (piece `grant-cache`). Invariant: an entry answers only while the database's change
 * mark is the one it was read under. SQLite (`ChangeMark`, sqlite-connection.ts): no statement that writes run by this
 * process, no commit by any other connection or process. A revocation, in this process or in another (`svc clients
 * revoke`), is a commit: the next request reads the grant again (test/speed/grant-cache.test.ts). While a transaction
 * of this process holds the connection there is no mark, and nothing is answered from memory. PostgreSQL
 * (postgres-marks.ts): no statement of this node that may write, no notification of a grant's change heard, and the
 * same second: another node's revocation is seen once notified, at most 1 s later (grant-cache-postgres.test.ts). A grant's expiry is the caller's to check, cached or not. On a read-mostly load it spares each request
 * the token's hash and lookup.
 */
export interface GrantCache<Context> {
  /** The grant of `token`: from memory while the mark holds, else `load()` (its answer kept when there is one). */
  read(
    ex: Executor,
    token: string,
    load: () => Promise<Grant<Context> | undefined>,
  ): Promise<Grant<Context> | undefined>;
}

class MarkedGrants<Context> implements GrantCache<Context> {
  #mark: string | null = null;
  readonly #entries = new Map<string, Grant<Context>>();
  constructor(readonly maxEntries: number) {}

  async read(ex: Executor, token: string, load: () => Promise<Grant<Context> | undefined>) {
    const mark = ex.changeMark?.() ?? null;
    if (mark === null) return load();
    if (mark !== this.#mark) {
      this.#entries.clear();
      this.#mark = mark;
    } else {
      const cached = this.#entries.get(token);
      if (cached) return cached;
    }
    const grant = await load();
    // Kept only if read under the mark still current: otherwise the database has changed meanwhile, and the
    // grant may describe it as it was.
    if (grant && mark === this.#mark) {
      if (this.#entries.size >= this.maxEntries) this.#entries.clear();
      this.#entries.set(token, grant);
    }
    return grant;
  }
}

/** A grant cache for the process (the database's marks), or, with the piece off, one that always reads. */
export function grantCache<Context>(maxEntries = 10_000): GrantCache<Context> {
  return isOn('grant-cache') ? new MarkedGrants<Context>(maxEntries) : { read: (_ex, _token, load) => load() };
}

/** Reads every time: for callers outside a request's hooks (no cache to share). */
export const noGrantCache: GrantCache<never> = { read: (_ex, _token, load) => load() };
