import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';

/**
 * The environment svc reads, as one TypeBox schema: every variable of the README's configuration table, in its
 * order, with its default and bounds. TypeBox's `Value` fills the defaults and finds the problems; what is left by
 * hand is how a value is spelt (below) and what one schema cannot say (config.ts: DATABASE_URL, TRUST_PROXY and the
 * rules between variables).
 */

export type Env = Record<string, string | undefined>;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The package's own directory (where package.json is), from src/ or from the dist/ bundle alike. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

const whole = (fallback: number, minimum: number, maximum: number) =>
  Type.Integer({ minimum, maximum, default: fallback });
/** A whole number whose default depends on other variables (config.ts computes it). */
const wholeOr = (minimum: number, maximum: number) => Type.Optional(Type.Integer({ minimum, maximum }));
const flag = () => Type.Boolean({ default: false });
/** Read as it is written; config.ts parses it. */
const text = () => Type.Optional(Type.String());
/** `problem`: the words of a refusal by pattern, which a regular expression does not say to a person. */
const spelt = (pattern: string, problem: string) => Type.Optional(Type.String({ pattern, problem }));

export const ENV_SCHEMA = Type.Object({
  HOST: Type.String({ default: '127.0.0.1' }),
  PORT: whole(8080, 0, 65535),
  DATABASE_URL: text(),
  DATABASE_LISTEN_URL: text(),
  /** Unset: config.ts decides (named when DATABASE_URL reaches PostgreSQL itself). */
  DATABASE_NAMED_STATEMENTS: Type.Optional(Type.Boolean()),
  LOG_LEVEL: Type.Enum(LOG_LEVELS, { default: 'info' }),
  TOKEN_TTL_SECONDS: whole(3600, 60, 86_400),
  RATE_LIMIT_MAX: whole(1000, 0, 1_000_000_000),
  RATE_LIMIT_WINDOW_SECONDS: whole(60, 1, 86_400),
  TOKEN_RATE_LIMIT_MAX: whole(60, 0, 1_000_000_000),
  SIGN_IN_RATE_LIMIT_MAX: whole(30, 0, 1_000_000_000),
  TRUST_PROXY: text(),
  REDIS_URL: spelt('^rediss?://', 'must start with redis:// or rediss://'),
  BODY_LIMIT_BYTES: whole(5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  REQUEST_TIMEOUT_MS: whole(30_000, 1000, 600_000),
  HEADERS_TIMEOUT_MS: wholeOr(500, 600_000),
  KEEP_ALIVE_TIMEOUT_MS: whole(72_000, 1000, 600_000),
  HSTS_MAX_AGE_SECONDS: whole(31_536_000, 0, 2 * 31_536_000),
  DATABASE_POOL_SIZE: whole(10, 1, 200),
  WORKERS: wholeOr(1, 256),
  SESSION_IDLE_MINUTES: whole(30, 1, 24 * 60),
  SESSION_ABSOLUTE_HOURS: whole(12, 1, 24 * 30),
  PASSWORD_HASH_MEMORY_KIB: whole(65_536, 19_456, 4_194_304),
  PASSWORD_HASH_PASSES: whole(3, 2, 10),
  PUBLIC_URL: spelt('^https?://[^/]+', 'must start with http:// or https://'),
  CONSOLE_DIR: Type.String({ default: path.join(packageRoot(), 'console', 'dist') }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag(),
  WEBHOOK_DELIVERY_CONCURRENCY: whole(64, 1, 10_000),
  WEBHOOK_ACCOUNT_CONCURRENCY: whole(16, 1, 10_000),
  WEBHOOK_ENDPOINT_CONCURRENCY: whole(8, 1, 10_000),
  WEBHOOK_TAKEOVER_SECONDS: whole(5, 2, 60),
  WEBHOOK_LEASE_SECONDS: whole(60, 30, 86_400),
  WEBHOOK_POLL_SECONDS: whole(1, 1, 3600),
  WEBHOOK_POOL_SIZE: whole(4, 1, 100),
  BACKUP_DIR: text(),
  BACKUP_EVERY_HOURS: whole(24, 1, 24 * 7),
  BACKUP_KEEP_DAILY: whole(7, 1, 366),
  BACKUP_KEEP_WEEKLY: whole(4, 0, 520),
  SANDBOX: flag(),
  SANDBOX_ADMIN_TOKEN: text(),
  RECEIPTS_DIR: text(),
  RECEIPT_MAX_BYTES: whole(10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  RECEIPTS_PER_RECORD: whole(10, 1, 100),
  RECEIPT_LINK_TTL_SECONDS: whole(900, 10, 7 * 86_400),
  RECEIPT_LINK_SECRET: Type.Optional(Type.String({ minLength: 32 })),
});

export type EnvValues = Static<typeof ENV_SCHEMA>;
export type EnvName = keyof EnvValues & string;

/** The variables, in the README table's order (problems are reported in it). */
export const ENV_NAMES = Object.keys(ENV_SCHEMA.properties).filter((name): name is EnvName =>
  Object.hasOwn(ENV_SCHEMA.properties, name),
);

interface Bounds {
  type?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  enum?: readonly string[];
  problem?: string;
}

const bounds = (name: EnvName): Bounds => ENV_SCHEMA.properties[name] as TSchema & Bounds;

/**
 * How svc has always read a value: surrounding spaces ignored, blank as unset (its default); a whole number only as
 * digits (no sign, point, exponent or hex: TypeBox's own Convert would take "1.5" as 1 and "0x10" as 16); true and
 * false, and the log level, in any case. Anything else stays text, for the schema to refuse.
 */
function spelling(name: EnvName, raw: string): unknown {
  const { type } = bounds(name);
  if (type === 'integer') return /^\d+$/.test(raw) ? Number(raw) : raw;
  if (type === 'boolean') return raw.toLowerCase() === 'true' ? true : raw.toLowerCase() === 'false' ? false : raw;
  return name === 'LOG_LEVEL' ? raw.toLowerCase() : raw;
}

/** A refusal in svc's words, naming the variable and the value as it was written. */
function problemOf(name: EnvName, keyword: string, written: string): string {
  const { type, minimum, maximum, minLength, enum: values, problem } = bounds(name);
  const words = (): string => {
    if (keyword === 'minimum' || keyword === 'maximum') {
      return `must be from ${minimum} to ${maximum} (got ${Number(written.trim())})`;
    }
    if (type === 'integer') return `must be a whole number from ${minimum} to ${maximum} (got "${written}")`;
    if (type === 'boolean') return `must be true or false (got "${written}")`;
    if (values) return `must be one of ${values.join(', ')} (got "${written}")`;
    if (keyword === 'minLength') return `must be at least ${minLength} characters`;
    return problem ?? `is not valid (got "${written}")`;
  };
  return `${name}: ${words()}`;
}

/**
 * The schema's variables of `env`, spelt as above, checked and given their defaults. A variable with a problem gets
 * its default (so that rules between variables judge the others as they will be once it is fixed) and its problem.
 */
export function readEnv(env: Env): { values: EnvValues; problems: Map<EnvName, string[]> } {
  const present: Record<string, unknown> = {};
  for (const name of ENV_NAMES) {
    const raw = env[name]?.trim();
    if (raw !== undefined && raw !== '') present[name] = spelling(name, raw);
  }
  // Each variable alone: a problem is the variable's, and TypeBox's cap on errors per check (8) never hides one.
  const problems = new Map<EnvName, string[]>();
  for (const name of ENV_NAMES) {
    if (present[name] === undefined) continue;
    const [error] = Value.Errors(ENV_SCHEMA.properties[name], present[name]);
    if (error === undefined) continue;
    problems.set(name, [problemOf(name, error.keyword, env[name] ?? '')]);
    delete present[name];
  }
  const values: unknown = Value.Default(ENV_SCHEMA, present);
  if (!Value.Check(ENV_SCHEMA, values)) throw new Error('config: the defaults of ENV_SCHEMA do not satisfy it');
  return { values, problems };
}
