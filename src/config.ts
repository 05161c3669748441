import os from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { ENV_NAMES, readEnv, type Env, type EnvName, type LOG_LEVELS } from './config.env.js';
import { parseDatabaseUrl, parseListenUrl, type DatabaseTarget } from './config.database.js';

export {
  DEFAULT_SANDBOX_SQLITE_PATH,
  DEFAULT_SQLITE_PATH,
  parseDatabaseUrl,
  type DatabaseTarget,
} from './config.database.js';

export type LogLevel = (typeof LOG_LEVELS)[number];

/** argon2id's cost for console passwords (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_PASSES). */
export interface PasswordHashCost {
  readonly memoryKib: number;
  readonly passes: number;
}

/** Scheduled backups: into `dir` every `everyHours`, kept by day and by ISO week (docs/operations.md). */
export interface BackupSchedule {
  readonly dir: string;
  readonly everyHours: number;
  readonly keepDaily: number;
  readonly keepWeekly: number;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly database: DatabaseTarget;
  readonly logLevel: LogLevel;
  readonly tokenTtlSeconds: number;
  readonly rateLimitMax: number;
  readonly rateLimitWindowSeconds: number;
  readonly tokenRateLimitMax: number;
  /** Sign-in and password-link requests per client address per window (each runs argon2); 0 turns it off. */
  readonly signInRateLimitMax: number;
  /**
   * Behind a reverse proxy: the client's address and protocol from X-Forwarded-For / X-Forwarded-Proto, as written by
   * this many proxies (a hop count) or by proxies at these addresses; false: the socket's own address.
   */
  readonly trustProxy: false | number | readonly string[];
  readonly redisUrl: string | null;
  readonly bodyLimitBytes: number;
  readonly requestTimeoutMs: number;
  /** A request's headers must have arrived within this (a client that dribbles them is cut). */
  readonly headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this (longer than a load balancer's own idle timeout). */
  readonly keepAliveTimeoutMs: number;
  /** Strict-Transport-Security max-age on every answer when PUBLIC_URL is https; 0: not sent. */
  readonly hstsMaxAgeSeconds: number;
  readonly databasePoolSize: number;
  /** Server processes on this machine, one port (src/cluster.ts); 1 runs the service in this process alone. */
  readonly workers: number;
  /** Console sessions end after this long without a request, and this long after sign-in whatever happens. */
  readonly sessionIdleMinutes: number;
  readonly sessionAbsoluteHours: number;
  readonly passwordHash: PasswordHashCost;
  /** The built console (console/dist of the package unless CONSOLE_DIR says otherwise). */
  readonly consoleDir: string;
  /** Where users reach the service: the base of the password links `svc users` prints. */
  readonly publicUrl: string;
  /** When set, /metrics wants it as a bearer token. */
  readonly metricsToken: string | null;
  /** Webhooks may target loopback, private, link-local and metadata addresses, and plain http (development, tests). */
  readonly webhookAllowPrivateTargets: boolean;
  /** Loopback webhook receivers: in sandbox mode by default, and whenever private targets are allowed. */
  readonly webhookAllowLoopbackTargets: boolean;
  /** Webhook attempts under way at once in a process: in all, per account, per endpoint (docs/webhooks.md). */
  readonly webhookConcurrency: { readonly total: number; readonly perAccount: number; readonly perEndpoint: number };
  /** Seconds a webhook dispatcher's heartbeat may stand still before another process takes its claims over. */
  readonly webhookTakeoverSeconds: number;
  /** Seconds a claimed webhook delivery is its process's at most, unless taken over sooner (claims of no known process). */
  readonly webhookLeaseSeconds: number;
  /**
   * Seconds an idle webhook dispatcher waits before it looks again unless woken (events.bell.ts): the bound for what
   * nothing announces (retries coming due, another SQLite process's events).
   */
  readonly webhookPollSeconds: number;
  /** PostgreSQL: the connections webhook delivery has to itself (worker 0 of each node), beside the requests' pool. */
  readonly webhookPoolSize: number;
  /** Scheduled backups (SQLite only); null: none. */
  readonly backupSchedule: BackupSchedule | null;
  /** Sandbox mode (docs/sandbox.md): the /sandbox/v1 routes and fault injection exist only when true. */
  readonly sandbox: boolean;
  /** The bearer token of the sandbox's operator routes; required when sandbox is on. */
  readonly sandboxAdminToken: string | null;
  readonly receipts: ReceiptsConfig;
}

/** Receipts (docs/receipts.md): where their bytes live, how large and how many, how long their links last. */
export interface ReceiptsConfig {
  /** SQLite: the folder of receipt files (RECEIPTS_DIR, default `receipts/` beside the database file). PostgreSQL: null, the bytes live in the database. */
  readonly dir: string | null;
  readonly maxBytes: number;
  readonly perRecord: number;
  readonly linkTtlSeconds: number;
  /** The key of download links (RECEIPT_LINK_SECRET); null: a key the service makes and keeps in the database. */
  readonly linkSecret: string | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: unset or false; a hop count (the proxies in front of svc, each appending the address it saw); or the
 * proxies' addresses and CIDR ranges (or `loopback`, `linklocal`, `uniquelocal`), comma-separated. Never `true`,
 * which would take the left-most X-Forwarded-For address, written by whoever sent the request.
 */
export function parseTrustProxy(raw: string | undefined): Config['trustProxy'] | string {
  const value = raw?.trim() ?? '';
  if (value === '' || value.toLowerCase() === 'false') return false;
  if (value.toLowerCase() === 'true') {
    return 'TRUST_PROXY: true would trust an X-Forwarded-For written by any client; give the number of proxies in front of svc (e.g. 1) or their addresses (e.g. 10.0.0.2,10.0.0.0/24)';
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops >= 1 && hops <= 10 ? hops : `TRUST_PROXY: a hop count must be from 1 to 10 (got ${value})`;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => {
    if (PROXY_RANGES.includes(entry)) return false;
    if (entry.includes('/')) {
      try {
        ipaddr.parseCIDR(entry);
        return false;
      } catch {
        return true;
      }
    }
    return !(ipaddr.IPv4.isValidFourPartDecimal(entry) || ipaddr.IPv6.isValid(entry));
  });
  if (bad.length > 0) {
    return `TRUST_PROXY: not an address, CIDR range or one of ${PROXY_RANGES.join(', ')}: ${bad.join(', ')}`;
  }
  return Object.freeze(entries);
}

/**
 * Reads every setting from `env` once (the schema of config.env.ts, then what it cannot say), reports every problem
 * at once, in the order of the README's table (ConfigError), and returns a frozen Config. Modules receive the
 * Config; nothing else reads process.env.
 */
export function loadConfig(env: Env): Config {
  const { values: v, problems } = readEnv(env);
  const problem = (name: EnvName, words: string) =>
    problems.set(name, [...(problems.get(name) ?? []), `${name}: ${words}`]);

  const parsed = parseDatabaseUrl(env.DATABASE_URL, v.SANDBOX);
  if (typeof parsed === 'string') problems.set('DATABASE_URL', [parsed]);
  const listen = parseListenUrl(env.DATABASE_LISTEN_URL, parsed);
  if (typeof listen === 'string') problems.set('DATABASE_LISTEN_URL', [listen]);
  if (v.DATABASE_NAMED_STATEMENTS !== undefined && typeof parsed !== 'string' && parsed.dialect !== 'postgres') {
    problem('DATABASE_NAMED_STATEMENTS', 'only with a postgres:// DATABASE_URL (SQLite has no server to keep them)');
  }
  // Named statements live on a server connection: through a PgBouncer in transaction mode (DATABASE_LISTEN_URL
  // set: DATABASE_URL goes through one) each transaction may get another one, where the name is unknown.
  const database =
    typeof parsed !== 'string' && parsed.dialect === 'postgres'
      ? {
          ...parsed,
          ...(typeof listen === 'object' ? { listenUrl: listen.url } : {}),
          namedStatements: v.DATABASE_NAMED_STATEMENTS ?? listen === undefined,
        }
      : parsed;
  const trustProxyParsed = parseTrustProxy(env.TRUST_PROXY);
  if (typeof trustProxyParsed === 'string') problems.set('TRUST_PROXY', [trustProxyParsed]);

  // Unset: 10 s, or the whole request's time when that is shorter.
  const headersTimeoutMs = v.HEADERS_TIMEOUT_MS ?? Math.min(10_000, v.REQUEST_TIMEOUT_MS);
  if (headersTimeoutMs > v.REQUEST_TIMEOUT_MS) {
    problem('HEADERS_TIMEOUT_MS', 'must not be longer than REQUEST_TIMEOUT_MS');
  }
  if (v.SESSION_IDLE_MINUTES > v.SESSION_ABSOLUTE_HOURS * 60) {
    problem('SESSION_IDLE_MINUTES', 'must not be longer than SESSION_ABSOLUTE_HOURS');
  }

  const publicUrl = (v.PUBLIC_URL ?? `http://${v.HOST.includes(':') ? `[${v.HOST}]` : v.HOST}:${v.PORT}`).replace(
    /\/+$/,
    '',
  );
  // Over https, HSTS keeps browsers there for a year by default; over http it means nothing and is not sent.
  const hstsMaxAgeSeconds = publicUrl.startsWith('https://') ? v.HSTS_MAX_AGE_SECONDS : 0;

  const webhookConcurrency = {
    total: v.WEBHOOK_DELIVERY_CONCURRENCY,
    perAccount: v.WEBHOOK_ACCOUNT_CONCURRENCY,
    perEndpoint: v.WEBHOOK_ENDPOINT_CONCURRENCY,
  };
  if (webhookConcurrency.perEndpoint > webhookConcurrency.perAccount) {
    problem('WEBHOOK_ENDPOINT_CONCURRENCY', 'must not be more than WEBHOOK_ACCOUNT_CONCURRENCY');
  }
  if (webhookConcurrency.perAccount > webhookConcurrency.total) {
    problem('WEBHOOK_ACCOUNT_CONCURRENCY', 'must not be more than WEBHOOK_DELIVERY_CONCURRENCY');
  }
  const sandbox = v.SANDBOX;
  const sandboxAdminToken = v.SANDBOX_ADMIN_TOKEN ?? null;
  if (sandbox && (sandboxAdminToken === null || sandboxAdminToken.length < 16)) {
    problem('SANDBOX_ADMIN_TOKEN', 'must be set, at least 16 characters, when SANDBOX=true');
  }

  // PostgreSQL: every core. SQLite, and a sandbox (whose faults live in one process's memory): one process.
  const postgres = typeof database !== 'string' && database.dialect === 'postgres';
  const workers = v.WORKERS ?? (postgres && !sandbox ? os.availableParallelism() : 1);
  if (sandbox && workers > 1) problem('WORKERS', 'must be 1 with SANDBOX=true (its faults live in one process)');

  const backupDir = v.BACKUP_DIR?.trim() || null;
  if (backupDir !== null && postgres) {
    problem(
      'BACKUP_DIR',
      'scheduled backups are for SQLite; on PostgreSQL run `svc backup` from a scheduler, or WAL archiving',
    );
  }
  // A schedule's other settings without its folder would be ignored: the operator believes backups are taken.
  if (backupDir === null) {
    for (const name of ['BACKUP_EVERY_HOURS', 'BACKUP_KEEP_DAILY', 'BACKUP_KEEP_WEEKLY'] as const) {
      if (env[name]?.trim())
        problem(name, 'takes effect only with BACKUP_DIR, which is not set: no backup is scheduled');
    }
  }

  if (problems.size > 0 || typeof database === 'string' || typeof trustProxyParsed === 'string') {
    throw new ConfigError(ENV_NAMES.flatMap((name) => problems.get(name) ?? []));
  }

  return Object.freeze({
    host: v.HOST,
    port: v.PORT,
    database: Object.freeze(database),
    logLevel: v.LOG_LEVEL,
    tokenTtlSeconds: v.TOKEN_TTL_SECONDS,
    rateLimitMax: v.RATE_LIMIT_MAX,
    rateLimitWindowSeconds: v.RATE_LIMIT_WINDOW_SECONDS,
    tokenRateLimitMax: v.TOKEN_RATE_LIMIT_MAX,
    signInRateLimitMax: v.SIGN_IN_RATE_LIMIT_MAX,
    trustProxy: trustProxyParsed,
    redisUrl: v.REDIS_URL ?? null,
    bodyLimitBytes: v.BODY_LIMIT_BYTES,
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    headersTimeoutMs,
    keepAliveTimeoutMs: v.KEEP_ALIVE_TIMEOUT_MS,
    hstsMaxAgeSeconds,
    databasePoolSize: v.DATABASE_POOL_SIZE,
    workers,
    sessionIdleMinutes: v.SESSION_IDLE_MINUTES,
    sessionAbsoluteHours: v.SESSION_ABSOLUTE_HOURS,
    passwordHash: Object.freeze({ memoryKib: v.PASSWORD_HASH_MEMORY_KIB, passes: v.PASSWORD_HASH_PASSES }),
    consoleDir: v.CONSOLE_DIR,
    publicUrl,
    metricsToken: v.METRICS_TOKEN ?? null,
    webhookAllowPrivateTargets: v.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    webhookAllowLoopbackTargets: v.WEBHOOK_ALLOW_PRIVATE_TARGETS || sandbox,
    webhookConcurrency: Object.freeze(webhookConcurrency),
    webhookTakeoverSeconds: v.WEBHOOK_TAKEOVER_SECONDS,
    webhookLeaseSeconds: v.WEBHOOK_LEASE_SECONDS,
    webhookPollSeconds: v.WEBHOOK_POLL_SECONDS,
    webhookPoolSize: v.WEBHOOK_POOL_SIZE,
    backupSchedule:
      backupDir === null
        ? null
        : Object.freeze({
            dir: path.resolve(backupDir),
            everyHours: v.BACKUP_EVERY_HOURS,
            keepDaily: v.BACKUP_KEEP_DAILY,
            keepWeekly: v.BACKUP_KEEP_WEEKLY,
          }),
    sandbox,
    sandboxAdminToken: sandbox ? sandboxAdminToken : null,
    receipts: Object.freeze({
      dir:
        database.dialect === 'postgres'
          ? null
          : path.resolve(v.RECEIPTS_DIR ?? path.join(path.dirname(database.path), 'receipts')),
      maxBytes: v.RECEIPT_MAX_BYTES,
      perRecord: v.RECEIPTS_PER_RECORD,
      linkTtlSeconds: v.RECEIPT_LINK_TTL_SECONDS,
      linkSecret: v.RECEIPT_LINK_SECRET ?? null,
    }),
  });
}
