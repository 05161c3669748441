import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
      databasePoolSize: 10,
      workers: 1,
      sessionIdleMinutes: 30,
      sessionAbsoluteHours: 12,
      consoleDir: path.join(ROOT, 'console', 'dist'),
      publicUrl: 'http://127.0.0.1:8080',
      metricsToken: null,
      webhookAllowPrivateTargets: false,
      sandbox: false,
      sandboxAdminToken: null,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(loadConfig({ HOST: '::1', PORT: '9000' }).publicUrl).toBe('http://[::1]:9000');
    expect(loadConfig({ PUBLIC_URL: 'https://svc.example.com/' }).publicUrl).toBe('https://svc.example.com');
    expect(() => loadConfig({ PUBLIC_URL: 'svc.example.com' })).toThrow(/PUBLIC_URL: must start with http/);
    expect(() => loadConfig({ SESSION_IDLE_MINUTES: '900', SESSION_ABSOLUTE_HOURS: '2' })).toThrow(
      /SESSION_IDLE_MINUTES: must not be longer than SESSION_ABSOLUTE_HOURS/,
    );
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
