import path from 'node:path';
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
  readonly redisUrl: string | null;
  readonly bodyLimitBytes: number;
  readonly requestTimeoutMs: number;
  readonly databasePoolSize: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const DEFAULT_SQLITE_PATH = path.join('data', 'svc.sqlite');

/** Parses DATABASE_URL: unset → ./data/svc.sqlite; `sqlite:<path>`; `postgres://` or `postgresql://`. */
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
  const bodyLimitBytes = int('BODY_LIMIT_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024);
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000);
  const databasePoolSize = int('DATABASE_POOL_SIZE', 10, 1, 200);

  let redisUrl: string | null = null;
  if (env.REDIS_URL !== undefined && env.REDIS_URL.trim() !== '') {
    const raw = env.REDIS_URL.trim();
    if (!/^rediss?:\/\//.test(raw)) problems.push('REDIS_URL: must start with redis:// or rediss://');
    else redisUrl = raw;
  }

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
    redisUrl,
    bodyLimitBytes,
    requestTimeoutMs,
    databasePoolSize,
  });
}
