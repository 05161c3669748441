/** What a driver error means, in both dialects. */

/** The `code` of a driver error (better-sqlite3 and pg both set one), or undefined. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** SQLite found the database locked by another connection or process (a statement that did nothing). */
export function isSqliteBusy(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

function errorMessage(error: unknown): string {
  if (typeof error !== 'object' || error === null || !('message' in error)) return '';
  return typeof error.message === 'string' ? error.message : '';
}

/**
 * True when PostgreSQL undid the transaction because it met a concurrent one: a serialization failure (40001) or a
 * deadlock (40P01, the victim PostgreSQL chose). Nothing of it was committed; the same request may simply be sent
 * again (→ 503 with Retry-After, not 500: the request was not wrong and nothing is broken).
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = errorCode(error);
  return code === '40001' || code === '40P01';
}

/** True when `error` is a unique or primary-key violation. */
export function isUniqueViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when `error` is a foreign-key violation (a parent row was deleted while children were being added). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = errorCode(error);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * True when `error` means the database cannot serve requests now (→ 503, retry later) rather than a bug in
 * the request (→ 500): the connection failed or was cut, the server is shutting down or has no connection left,
 * the database is gone; for SQLite, the file is locked, unreadable or not a database. A full disk is not this
 * (`isStorageFull`): retrying in a second does not help.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = errorCode(error) ?? '';
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code) ||
    // PostgreSQL: class 08 connection exception, class 57P operator intervention (shutdown, database
    // dropped), 53300 too many connections, 3D000 the database does not exist (any more).
    /^(08...|57P0[1-4]|53300|3D000)$/.test(code) ||
    /^SQLITE_(BUSY|LOCKED|NOTADB|CORRUPT|CANTOPEN|IOERR)/.test(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      errorMessage(error),
    )
  );
}

/**
 * True when `error` means there is no room left to store what the request writes (→ 507, nothing stored): the file
 * system is full or over quota (ENOSPC, EDQUOT: a receipt's file), SQLite could not grow its database or journal
 * (SQLITE_FULL), PostgreSQL could not extend a file (53100 disk_full).
 */
export function isStorageFull(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOSPC' || code === 'EDQUOT' || code === '53100' || code === 'SQLITE_FULL';
}
