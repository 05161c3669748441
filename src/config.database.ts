import path from 'node:path';
import { packageRoot } from './config.env.js';

/**
 * Where the data is. On PostgreSQL, `listenUrl`: the direct connection the grant cache's listener holds (LISTEN hears
 * nothing through a PgBouncer in transaction mode), when DATABASE_URL goes through one; `namedStatements`: the hot
 * statements are named on each connection (DATABASE_NAMED_STATEMENTS; unset in a target made without loadConfig, a
 * backup copy's say: not named).
 */
export type DatabaseTarget =
  | { dialect: 'sqlite'; path: string }
  | { dialect: 'postgres'; url: string; listenUrl?: string; namedStatements?: boolean };

/** data/svc.sqlite in the package's folder: the server and every CLI command find the same file wherever they run. */
export const DEFAULT_SQLITE_PATH = path.join(packageRoot(), 'data', 'svc.sqlite');
/** A sandbox's own default file beside it: a sandbox never writes its test accounts into the real database. */
export const DEFAULT_SANDBOX_SQLITE_PATH = path.join(packageRoot(), 'data', 'svc-sandbox.sqlite');

/**
 * Parses DATABASE_URL: unset → data/svc.sqlite in the package's folder (data/svc-sandbox.sqlite for a sandbox);
 * `sqlite:<path>`; `postgres://` or `postgresql://`.
 */
export function parseDatabaseUrl(raw: string | undefined, sandbox = false): DatabaseTarget | string {
  if (raw === undefined || raw.trim() === '') {
    return { dialect: 'sqlite', path: sandbox ? DEFAULT_SANDBOX_SQLITE_PATH : DEFAULT_SQLITE_PATH };
  }
  const value = raw.trim();
  if (value.startsWith('sqlite:')) {
    const file = value.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') return 'DATABASE_URL: sqlite: needs a file path, e.g. sqlite:./data/svc.sqlite';
    return { dialect: 'sqlite', path: file };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
    } catch {
      return 'DATABASE_URL: not a valid postgres:// URL';
    }
    return { dialect: 'postgres', url: value };
  }
  return 'DATABASE_URL: must start with sqlite: or postgres:// (got an unsupported scheme)';
}

/**
 * DATABASE_LISTEN_URL: unset → undefined (the listener uses DATABASE_URL); a postgres:// URL of the same database,
 * reaching PostgreSQL itself; a string: the problem (a SQLite DATABASE_URL, where nothing listens; not postgres://).
 */
export function parseListenUrl(
  raw: string | undefined,
  database: DatabaseTarget | string,
): { url: string } | string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = raw.trim();
  if (typeof database !== 'string' && database.dialect !== 'postgres') {
    return 'DATABASE_LISTEN_URL: only with a postgres:// DATABASE_URL (the grant cache listens on PostgreSQL)';
  }
  const parsed = parseDatabaseUrl(value);
  if (typeof parsed === 'string' || parsed.dialect !== 'postgres') {
    return 'DATABASE_LISTEN_URL: must be a postgres:// URL (a direct connection to the server, not through PgBouncer)';
  }
  return { url: parsed.url };
}
