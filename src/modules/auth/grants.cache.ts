/**
 * Grants of recently used tokens, valid only while the database is unchanged (authRepository.changeMark: on
 * SQLite, no row written by this process and no commit by any other since the grant was read). A revocation
 * (`svc clients revoke`, in another process) is a commit, so the next request reads the grant again: the
 * cache never answers for a database that has changed. Where no mark exists (PostgreSQL), nothing is cached.
 * On a read-mostly load it spares each request the token's hash and lookup.
 */
export class GrantCache<Context> {
  #mark: string | null = null;
  readonly #entries = new Map<string, { context: Context; expiresAt: number }>();
  constructor(readonly maxEntries = 10_000) {}

  get(mark: string, token: string): { context: Context; expiresAt: number } | undefined {
    if (mark !== this.#mark) {
      this.#entries.clear();
      this.#mark = mark;
      return undefined;
    }
    return this.#entries.get(token);
  }

  set(mark: string, token: string, entry: { context: Context; expiresAt: number }): void {
    // Read under an older mark: the database has changed since, and the entry may describe it as it was.
    if (mark !== this.#mark) return;
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    this.#entries.set(token, entry);
  }
}
