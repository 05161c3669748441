import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_NAMES } from '../../src/config.env.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ROOT, runNode } from '../support/processes.js';

describe('configuration', () => {
  it('reports every problem at once in one ConfigError', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://localhost/svc',
        LOG_LEVEL: 'loud',
        TOKEN_TTL_SECONDS: '5',
        RATE_LIMIT_MAX: '-1',
        REDIS_URL: 'http://localhost',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'PORT: must be a whole number from 0 to 65535 (got "eighty")',
      'DATABASE_URL: must start with sqlite: or postgres:// (got an unsupported scheme)',
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'TOKEN_TTL_SECONDS: must be from 60 to 86400 (got 5)',
      'RATE_LIMIT_MAX: must be a whole number from 0 to 1000000000 (got "-1")',
      'REDIS_URL: must start with redis:// or rediss://',
    ]);
    expect((error as Error).message.split('\n')).toHaveLength(7);
  });

  it('runs one worker per core on PostgreSQL and one on SQLite or in a sandbox unless WORKERS says otherwise', () => {
    const pg = { DATABASE_URL: 'postgres://localhost/svc' };
    expect(loadConfig(pg).workers).toBe(os.availableParallelism());
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ ...pg, WORKERS: '3' }).workers).toBe(3);
    expect(loadConfig({ WORKERS: '4' }).workers).toBe(4);
    const sandbox = { ...pg, SANDBOX: 'true', SANDBOX_ADMIN_TOKEN: 'sandbox-token-0123456789' };
    expect(loadConfig(sandbox).workers).toBe(1);
    expect(() => loadConfig({ ...sandbox, WORKERS: '2' })).toThrow(/WORKERS: must be 1 with SANDBOX=true/);
    expect(() => loadConfig({ WORKERS: '0' })).toThrow(/WORKERS: must be from 1 to 256 \(got 0\)/);
    expect(() => loadConfig({ WORKERS: 'all' })).toThrow(/WORKERS: must be a whole number from 1 to 256/);
  });

  it("takes DATABASE_LISTEN_URL as the grant listener's direct PostgreSQL URL, and only with a PostgreSQL DATABASE_URL", () => {
    const pg = { DATABASE_URL: 'postgres://svc@bouncer:6432/svc' };
    expect(loadConfig(pg).database).toEqual({ dialect: 'postgres', url: pg.DATABASE_URL, namedStatements: true });
    expect(loadConfig({ ...pg, DATABASE_LISTEN_URL: ' postgresql://svc@db:5432/svc ' }).database).toEqual({
      dialect: 'postgres',
      url: pg.DATABASE_URL,
      listenUrl: 'postgresql://svc@db:5432/svc',
      namedStatements: false,
    });
    expect(loadConfig({ ...pg, DATABASE_LISTEN_URL: '  ' }).database).toEqual({
      dialect: 'postgres',
      url: pg.DATABASE_URL,
      namedStatements: true,
    });
    expect(() => loadConfig({ ...pg, DATABASE_LISTEN_URL: 'sqlite:/tmp/x.sqlite' })).toThrow(
      /DATABASE_LISTEN_URL: must be a postgres:\/\/ URL/,
    );
    expect(() =>
      loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.sqlite', DATABASE_LISTEN_URL: 'postgres://db/svc' }),
    ).toThrow(/DATABASE_LISTEN_URL: only with a postgres:\/\/ DATABASE_URL/);
  });

  it('names the hot statements on PostgreSQL unless DATABASE_URL goes through a pooler, as DATABASE_NAMED_STATEMENTS says', () => {
    const pg = { DATABASE_URL: 'postgres://svc@db:5432/svc' };
    const bounced = { DATABASE_URL: 'postgres://svc@bouncer:6432/svc', DATABASE_LISTEN_URL: pg.DATABASE_URL };
    const named = (env: Record<string, string>) => {
      const { database } = loadConfig(env);
      return database.dialect === 'postgres' ? database.namedStatements : 'sqlite';
    };
    expect(named(pg)).toBe(true);
    expect(named(bounced)).toBe(false);
    expect(named({ ...pg, DATABASE_NAMED_STATEMENTS: 'false' })).toBe(false);
    expect(named({ ...bounced, DATABASE_NAMED_STATEMENTS: 'true' })).toBe(true);
    expect(() => loadConfig({ ...pg, DATABASE_NAMED_STATEMENTS: 'sometimes' })).toThrow(/DATABASE_NAMED_STATEMENTS/);
    expect(() => loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.sqlite', DATABASE_NAMED_STATEMENTS: 'true' })).toThrow(
      /DATABASE_NAMED_STATEMENTS: only with a postgres:\/\/ DATABASE_URL/,
    );
    expect(named({})).toBe('sqlite');
  });

  it("takes TRUST_PROXY as a hop count or the proxies' addresses, never as true", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.2, 10.0.1.0/24,loopback, fd00::/8' }).trustProxy).toEqual([
      '10.0.0.2',
      '10.0.1.0/24',
      'loopback',
      'fd00::/8',
    ]);
    // true would take the left-most X-Forwarded-For address, which the client writes.
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY: true would trust an X-Forwarded-For written by any client; give the number of proxies/,
    );
    expect(() => loadConfig({ TRUST_PROXY: '0' })).toThrow(/TRUST_PROXY: a hop count must be from 1 to 10 \(got 0\)/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.2,proxy.local,10.0.0.300' })).toThrow(
      /TRUST_PROXY: not an address, CIDR range or one of loopback, linklocal, uniquelocal: proxy.local, 10.0.0.300/,
    );
  });

  it('sets the connection clocks and HSTS from the environment', () => {
    const config = loadConfig({ HEADERS_TIMEOUT_MS: '2000', KEEP_ALIVE_TIMEOUT_MS: '5000' });
    expect([config.headersTimeoutMs, config.keepAliveTimeoutMs]).toEqual([2000, 5000]);
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      /HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS/,
    );
    // HSTS only where the service is reached over https; a year unless said otherwise; 0 turns it off.
    expect(loadConfig({ PUBLIC_URL: 'https://svc.example.com' }).hstsMaxAgeSeconds).toBe(31_536_000);
    expect(loadConfig({ PUBLIC_URL: 'https://svc.example.com', HSTS_MAX_AGE_SECONDS: '0' }).hstsMaxAgeSeconds).toBe(0);
    expect(loadConfig({ HSTS_MAX_AGE_SECONDS: '600' }).hstsMaxAgeSeconds).toBe(0);
  });

  it('returns a frozen config with the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toEqual({
      host: '127.0.0.1',
      port: 8080,
      database: { dialect: 'sqlite', path: path.join(ROOT, 'data', 'svc.sqlite') },
      logLevel: 'info',
      tokenTtlSeconds: 3600,
      rateLimitMax: 1000,
      rateLimitWindowSeconds: 60,
      tokenRateLimitMax: 60,
      signInRateLimitMax: 30,
      trustProxy: false,
      redisUrl: null,
      bodyLimitBytes: 5 * 1024 * 1024,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      hstsMaxAgeSeconds: 0,
      webhookConcurrency: { total: 64, perAccount: 16, perEndpoint: 8 },
      webhookTakeoverSeconds: 5,
      webhookLeaseSeconds: 60,
      webhookPollSeconds: 1,
      webhookPoolSize: 4,
      backupSchedule: null,
      databasePoolSize: 10,
      workers: 1,
      sessionIdleMinutes: 30,
      sessionAbsoluteHours: 12,
      passwordHash: { memoryKib: 65_536, passes: 3 },
      consoleDir: path.join(ROOT, 'console', 'dist'),
      publicUrl: 'http://127.0.0.1:8080',
      metricsToken: null,
      webhookAllowPrivateTargets: false,
      webhookAllowLoopbackTargets: false,
      sandbox: false,
      sandboxAdminToken: null,
      receipts: {
        dir: path.join(ROOT, 'data', 'receipts'),
        maxBytes: 10 * 1024 * 1024,
        perRecord: 10,
        linkTtlSeconds: 900,
        linkSecret: null,
      },
    });
    expect(Object.isFrozen(config)).toBe(true);
    // On PostgreSQL the bytes live in the database: no folder.
    expect(loadConfig({ DATABASE_URL: 'postgres://svc@db/svc' }).receipts.dir).toBeNull();
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/svc/svc.sqlite' }).receipts.dir).toBe('/srv/svc/receipts');
    expect(loadConfig({ RECEIPTS_DIR: '/mnt/receipts' }).receipts.dir).toBe('/mnt/receipts');
    expect(loadConfig({ HOST: '::1', PORT: '9000' }).publicUrl).toBe('http://[::1]:9000');
    expect(loadConfig({ PUBLIC_URL: 'https://svc.example.com/' }).publicUrl).toBe('https://svc.example.com');
    expect(() => loadConfig({ PUBLIC_URL: 'svc.example.com' })).toThrow(/PUBLIC_URL: must start with http/);
    expect(() => loadConfig({ SESSION_IDLE_MINUTES: '900', SESSION_ABSOLUTE_HOURS: '2' })).toThrow(
      /SESSION_IDLE_MINUTES: must not be longer than SESSION_ABSOLUTE_HOURS/,
    );
    // A cheaper password hash than OWASP's argon2id floor is refused.
    expect(() => loadConfig({ PASSWORD_HASH_MEMORY_KIB: '19455', PASSWORD_HASH_PASSES: '1' })).toThrow(
      /PASSWORD_HASH_MEMORY_KIB: must be from 19456 to 4194304 \(got 19455\)\n.*PASSWORD_HASH_PASSES: must be from 2 to 10/,
    );
  });

  it("reads exactly the variables of the README's configuration table, in its order", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const table = /## Configuration\n[\s\S]*?\n\| Variable[^\n]*\n\|---[^\n]*\n((?:\|[^\n]*\n)+)/.exec(readme)?.[1];
    const documented = (table ?? '')
      .split('\n')
      .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]));
    expect(documented).toEqual(ENV_NAMES);
  });

  it('reads a value as svc always has: trimmed, blank as unset, whole numbers as digits, true/false in any case', () => {
    const blank = loadConfig({ PORT: '  ', LOG_LEVEL: '', WEBHOOK_ALLOW_PRIVATE_TARGETS: ' ', METRICS_TOKEN: '   ' });
    expect([blank.port, blank.logLevel, blank.webhookAllowPrivateTargets, blank.metricsToken]).toEqual([
      8080,
      'info',
      false,
      null,
    ]);
    const spaced = loadConfig({
      PORT: ' 9000 ',
      LOG_LEVEL: 'DEBUG',
      SANDBOX: 'True',
      SANDBOX_ADMIN_TOKEN: ' sandbox-token-0123456789 ',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'TRUE',
    });
    expect([
      spaced.port,
      spaced.logLevel,
      spaced.sandbox,
      spaced.sandboxAdminToken,
      spaced.webhookAllowPrivateTargets,
    ]).toEqual([9000, 'debug', true, 'sandbox-token-0123456789', true]);
    expect(loadConfig({ PORT: '0080' }).port).toBe(80);
    // No sign, point, exponent or hex: a number that is not written as digits is a mistake, not a rounding.
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (e) {
        return (e as ConfigError).problems;
      }
    };
    expect(problems({ PORT: '1.5', DATABASE_POOL_SIZE: '0x10', TOKEN_TTL_SECONDS: '1e3', WORKERS: '+2' })).toEqual([
      'PORT: must be a whole number from 0 to 65535 (got "1.5")',
      'TOKEN_TTL_SECONDS: must be a whole number from 60 to 86400 (got "1e3")',
      'DATABASE_POOL_SIZE: must be a whole number from 1 to 200 (got "0x10")',
      'WORKERS: must be a whole number from 1 to 256 (got "+2")',
    ]);
    expect(problems({ SANDBOX: '1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'yes', METRICS_TOKEN: 'short' })).toEqual([
      'METRICS_TOKEN: must be at least 16 characters',
      'WEBHOOK_ALLOW_PRIVATE_TARGETS: must be true or false (got "yes")',
      'SANDBOX: must be true or false (got "1")',
    ]);
    // A schedule's settings without its folder would schedule nothing: said, not ignored.
    expect(problems({ BACKUP_EVERY_HOURS: '6', BACKUP_KEEP_WEEKLY: '2' })).toEqual([
      'BACKUP_EVERY_HOURS: takes effect only with BACKUP_DIR, which is not set: no backup is scheduled',
      'BACKUP_KEEP_WEEKLY: takes effect only with BACKUP_DIR, which is not set: no backup is scheduled',
    ]);
    expect(loadConfig({ BACKUP_DIR: '/tmp/x', BACKUP_EVERY_HOURS: '6' }).backupSchedule?.everyHours).toBe(6);
    // A bad value is judged alone: the rules between variables see its default, not a second problem.
    expect(problems({ REQUEST_TIMEOUT_MS: 'soon', WEBHOOK_DELIVERY_CONCURRENCY: '0' })).toEqual([
      'REQUEST_TIMEOUT_MS: must be a whole number from 1000 to 600000 (got "soon")',
      'WEBHOOK_DELIVERY_CONCURRENCY: must be from 1 to 10000 (got 0)',
    ]);
    expect(problems({ WEBHOOK_ENDPOINT_CONCURRENCY: '20', WEBHOOK_ACCOUNT_CONCURRENCY: '100' })).toEqual([
      'WEBHOOK_ACCOUNT_CONCURRENCY: must not be more than WEBHOOK_DELIVERY_CONCURRENCY',
    ]);
    // Every problem, however many (TypeBox stops a check at 8 errors: each variable is checked alone).
    const many = Object.fromEntries(
      [
        'PORT',
        'TOKEN_TTL_SECONDS',
        'RATE_LIMIT_MAX',
        'RATE_LIMIT_WINDOW_SECONDS',
        'TOKEN_RATE_LIMIT_MAX',
        'SIGN_IN_RATE_LIMIT_MAX',
        'BODY_LIMIT_BYTES',
        'REQUEST_TIMEOUT_MS',
        'KEEP_ALIVE_TIMEOUT_MS',
        'DATABASE_POOL_SIZE',
      ].map((name) => [name, 'x']),
    );
    expect(problems(many).map((p) => p.split(':')[0])).toEqual(Object.keys(many));
    // Variables svc does not read are ignored.
    expect(loadConfig({ PATH: '/usr/bin', SVC_UNKNOWN: 'x' }).port).toBe(8080);
  });

  it('makes the server exit non-zero with one message naming every problem', async () => {
    const result = await runNode('dist/server.js', [], { PORT: '99999', LOG_LEVEL: 'chatty', DATABASE_URL: 'sqlite:' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'svc: Invalid configuration:',
        '  - PORT: must be from 0 to 65535 (got 99999)',
        '  - DATABASE_URL: sqlite: needs a file path, e.g. sqlite:./data/svc.sqlite',
        '  - LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "chatty")',
        '',
      ].join('\n'),
    );
  });
});
