import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';
import { isOneOf } from './lib/guards.js';

export type DatabaseTarget = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: string };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

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
  /** The built console (console/dist of the package unless CONSOLE_DIR says otherwise). */
  readonly consoleDir: string;
  /** Where users reach the service: the base of the password links `svc users` prints. */
  readonly publicUrl: string;
  /** When set, /metrics wants it as a bearer token. */
  readonly metricsToken: string | null;
  /** Webhooks may target loopback, private, link-local and metadata addresses, and plain http (development, tests). */
  readonly webhookAllowPrivateTargets: boolean;
  /** Webhook attempts under way at once in a process: in all, per account, per endpoint (docs/webhooks.md). */
  readonly webhookConcurrency: { readonly total: number; readonly perAccount: number; readonly perEndpoint: number };
  /** Sandbox mode (docs/sandbox.md): the /sandbox/v1 routes and fault injection exist only when true. */
  readonly sandbox: boolean;
  /** The bearer token of the sandbox's operator routes; required when sandbox is on. */
  readonly sandboxAdminToken: string | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The package's own directory (where package.json is), from src/ or from the dist/ bundle alike. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/** data/svc.sqlite in the package's folder: the server and every CLI command find the same file wherever they run. */
export const DEFAULT_SQLITE_PATH = path.join(packageRoot(), 'data', 'svc.sqlite');

/** Parses DATABASE_URL: unset → data/svc.sqlite in the package's folder; `sqlite:<path>`; `postgres://` or `postgresql://`. */
export function parseDatabaseUrl(raw: string | undefined): DatabaseTarget | string {
  if (raw === undefined || raw.trim() === '') return { dialect: 'sqlite', path: DEFAULT_SQLITE_PATH };
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
 * Reads every setting from `env` once, reports every problem at once (ConfigError) and returns a frozen
 * Config. Modules receive the Config; nothing else reads process.env.
 */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    if (!/^\d+$/.test(raw.trim())) {
      problems.push(`${name}: must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    const value = Number(raw.trim());
    if (value < min || value > max) {
      problems.push(`${name}: must be from ${min} to ${max} (got ${value})`);
      return fallback;
    }
    return value;
  };

  /** true or false (any case), false when unset. */
  const bool = (name: string): boolean => {
    const raw = (env[name]?.trim() || 'false').toLowerCase();
    if (raw !== 'true' && raw !== 'false') problems.push(`${name}: must be true or false (got "${env[name]}")`);
    return raw === 'true';
  };

  const host = env.HOST?.trim() || '127.0.0.1';
  const port = int('PORT', 8080, 0, 65535);

  const database = parseDatabaseUrl(env.DATABASE_URL);
  if (typeof database === 'string') problems.push(database);

  const logLevelRaw = (env.LOG_LEVEL?.trim() || 'info').toLowerCase();
  if (!isOneOf(LOG_LEVELS, logLevelRaw)) {
    problems.push(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  }

  const tokenTtlSeconds = int('TOKEN_TTL_SECONDS', 3600, 60, 86_400);
  const rateLimitMax = int('RATE_LIMIT_MAX', 1000, 0, 1_000_000_000);
  const rateLimitWindowSeconds = int('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400);
  const tokenRateLimitMax = int('TOKEN_RATE_LIMIT_MAX', 60, 0, 1_000_000_000);
  const signInRateLimitMax = int('SIGN_IN_RATE_LIMIT_MAX', 30, 0, 1_000_000_000);
  const bodyLimitBytes = int('BODY_LIMIT_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024);
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000);
  // Unset: 10 s, or the whole request's time when that is shorter.
  const headersTimeoutMs = int('HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 500, 600_000);
  if (headersTimeoutMs > requestTimeoutMs)
    problems.push('HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS');
  const keepAliveTimeoutMs = int('KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 600_000);
  const databasePoolSize = int('DATABASE_POOL_SIZE', 10, 1, 200);

  const sessionIdleMinutes = int('SESSION_IDLE_MINUTES', 30, 1, 24 * 60);
  const sessionAbsoluteHours = int('SESSION_ABSOLUTE_HOURS', 12, 1, 24 * 30);
  if (sessionIdleMinutes > sessionAbsoluteHours * 60) {
    problems.push('SESSION_IDLE_MINUTES: must not be longer than SESSION_ABSOLUTE_HOURS');
  }
  const consoleDir = env.CONSOLE_DIR?.trim() || path.join(packageRoot(), 'console', 'dist');

  let redisUrl: string | null = null;
  if (env.REDIS_URL !== undefined && env.REDIS_URL.trim() !== '') {
    const raw = env.REDIS_URL.trim();
    if (!/^rediss?:\/\//.test(raw)) problems.push('REDIS_URL: must start with redis:// or rediss://');
    else redisUrl = raw;
  }

  const publicUrl = (env.PUBLIC_URL?.trim() || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  if (!/^https?:\/\/[^/]+/.test(publicUrl)) problems.push('PUBLIC_URL: must start with http:// or https://');

  // Over https, HSTS keeps browsers there for a year by default; over http it means nothing and is not sent.
  const hstsMaxAge = int('HSTS_MAX_AGE_SECONDS', 31_536_000, 0, 2 * 31_536_000);
  const hstsMaxAgeSeconds = publicUrl.startsWith('https://') ? hstsMaxAge : 0;

  const metricsToken = env.METRICS_TOKEN?.trim() || null;
  if (metricsToken !== null && metricsToken.length < 16) problems.push('METRICS_TOKEN: must be at least 16 characters');

  const webhookAllowPrivateTargets = bool('WEBHOOK_ALLOW_PRIVATE_TARGETS');
  const webhookConcurrency = {
    total: int('WEBHOOK_DELIVERY_CONCURRENCY', 64, 1, 10_000),
    perAccount: int('WEBHOOK_ACCOUNT_CONCURRENCY', 16, 1, 10_000),
    perEndpoint: int('WEBHOOK_ENDPOINT_CONCURRENCY', 8, 1, 10_000),
  };
  if (webhookConcurrency.perEndpoint > webhookConcurrency.perAccount) {
    problems.push('WEBHOOK_ENDPOINT_CONCURRENCY: must not be more than WEBHOOK_ACCOUNT_CONCURRENCY');
  }
  if (webhookConcurrency.perAccount > webhookConcurrency.total) {
    problems.push('WEBHOOK_ACCOUNT_CONCURRENCY: must not be more than WEBHOOK_DELIVERY_CONCURRENCY');
  }
  const trustProxyParsed = parseTrustProxy(env.TRUST_PROXY);
  if (typeof trustProxyParsed === 'string') problems.push(trustProxyParsed);
  const trustProxy = typeof trustProxyParsed === 'string' ? false : trustProxyParsed;
  const sandbox = bool('SANDBOX');
  const sandboxAdminToken = env.SANDBOX_ADMIN_TOKEN?.trim() || null;
  if (sandbox && (sandboxAdminToken === null || sandboxAdminToken.length < 16)) {
    problems.push('SANDBOX_ADMIN_TOKEN: must be set, at least 16 characters, when SANDBOX=true');
  }

  // PostgreSQL: every core. SQLite, and a sandbox (whose faults live in one process's memory): one process.
  const postgres = typeof database !== 'string' && database.dialect === 'postgres';
  const workers = int('WORKERS', postgres && !sandbox ? os.availableParallelism() : 1, 1, 256);
  if (sandbox && workers > 1) problems.push('WORKERS: must be 1 with SANDBOX=true (its faults live in one process)');

  if (problems.length > 0 || typeof database === 'string' || !isOneOf(LOG_LEVELS, logLevelRaw)) {
    throw new ConfigError(problems);
  }

  return Object.freeze({
    host,
    port,
    database: Object.freeze(database),
    logLevel: logLevelRaw,
    tokenTtlSeconds,
    rateLimitMax,
    rateLimitWindowSeconds,
    tokenRateLimitMax,
    signInRateLimitMax,
    trustProxy,
    redisUrl,
    bodyLimitBytes,
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs,
    hstsMaxAgeSeconds,
    databasePoolSize,
    workers,
    sessionIdleMinutes,
    sessionAbsoluteHours,
    consoleDir,
    publicUrl,
    metricsToken,
    webhookAllowPrivateTargets,
    webhookConcurrency: Object.freeze(webhookConcurrency),
    sandbox,
    sandboxAdminToken: sandbox ? sandboxAdminToken : null,
  });
}
