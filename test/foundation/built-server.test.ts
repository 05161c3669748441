import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { ROOT, startServer } from '../support/processes.js';

// `npm start` runs dist/server.js, which runs the one bundle `npm run build` writes (scripts/bundle-server.mjs). The
// tests that spawn a server (shutdown, crash, races, abuse) run that file; these hold its answers to the app
// the tests build from the sources, for the parts that read files next to their code.
describeEachDialect('the built server (dist/server.js)', (t) => {
  it('is one module apart from its external packages, run by an entry of its own through the code cache', () => {
    const entry = fs.readFileSync(path.join(ROOT, 'dist/server.js'), 'utf8');
    expect(entry).not.toMatch(/from\s*["']\.\.?\//);
    expect(entry).toMatch(/loadBundle\(new URL\("\.\/server\.bundle\.cjs", import\.meta\.url\), "[0-9a-f]{16}"\)/);
    const bundle = fs.readFileSync(path.join(ROOT, 'dist/server.bundle.cjs'), 'utf8');
    // The entry names the cache by this very bundle's content (scripts/bundle-server.mjs).
    const hash = createHash('sha256').update(bundle).digest('hex').slice(0, 16);
    expect(entry).toContain(`"${hash}"`);
    expect(bundle).not.toMatch(/\brequire\(\s*["']\.\.?\//);
    // A bundle runs as a script, where import() has no loader: none in the server's; the CLI's one is esm-import's
    // (src/lib/esm-import.ts), which runs the entry's import() instead. JSDoc types and methods named import aside.
    const dynamicImports = (text: string) =>
      [...text.matchAll(/(?<![{.\w])import\([^)]*\)(?!\s*\{)/g)].map((m) => m[0]);
    expect(dynamicImports(bundle)).toEqual([]);
    const cli = fs.readFileSync(path.join(ROOT, 'dist/cli/main.bundle.cjs'), 'utf8');
    expect(dynamicImports(cli)).toEqual(['import(url)']);
    expect(cli).toMatch(/globalThis\.svcEsmImport\(url\) : import\(url\);/);
    // One-byte text: a single non-ASCII character (a "§" in a carried-over comment) makes V8 hold the whole source,
    // kept for the process's life, as two bytes a character (scripts/bundle-server.mjs, asciiOnly).
    const nonAscii = (text: string) => text.match(/[\u{80}-\u{10ffff}]/gu) ?? [];
    expect([nonAscii(bundle), nonAscii(cli)]).toEqual([[], []]);
  });

  it('serves the same OpenAPI document, /docs with its assets, health and a token as the app built from the sources', async () => {
    const creds = await t.ctx.newClient(['fields.read']);
    const server = await startServer({ DATABASE_URL: t.ctx.database.url, RATE_LIMIT_MAX: '0' });
    try {
      const get = (url: string) => fetch(`${server.url}${url}`);
      const built = await (await get('/openapi.json')).text();
      expect(built).toBe((await t.ctx.app.inject({ method: 'GET', url: '/openapi.json' })).body);
      const page = await get('/docs');
      expect(page.status).toBe(200);
      const assets = [...(await page.text()).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThan(2);
      for (const asset of assets) {
        const res = await get(asset);
        expect([asset, res.status]).toEqual([asset, 200]);
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
      }
      expect([(await get('/readyz')).status, (await get('/metrics')).status]).toEqual([200, 200]);
      const token = await fetch(`${server.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: creds.client_id,
          client_secret: creds.client_secret,
        }),
      });
      expect(token.status).toBe(200);
      const missing = await fetch(`${server.url}/v1/fields/extended_field_missing`, {
        headers: { authorization: `Bearer ${((await token.json()) as { access_token: string }).access_token}` },
      });
      expect([missing.status, ((await missing.json()) as { error_code: string }).error_code]).toEqual([
        404,
        'NOT_FOUND',
      ]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('logs one JSON line per request as it completes: route, status, time taken, who asked, the request id', async () => {
    const api = await t.ctx.as(['fields.read']);
    const server = await startServer({ DATABASE_URL: t.ctx.database.url, RATE_LIMIT_MAX: '0' });
    let answer: Response;
    try {
      answer = await fetch(`${server.url}/v1/fields/fld_missing?x=1`, {
        headers: { authorization: `Bearer ${api.token}` },
      });
      expect(answer.status).toBe(404);
    } finally {
      server.child.kill('SIGTERM');
    }
    const { stdout } = await server.exited;
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests).toEqual([
      {
        level: 30,
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        pid: expect.any(Number),
        hostname: expect.any(String),
        reqId: answer.headers.get('x-request-id'),
        method: 'GET',
        route: '/v1/fields/:id',
        path: '/v1/fields/fld_missing',
        status: 404,
        ms: expect.any(Number),
        account_id: api.accountId,
        actor: `client:${api.clientId}`,
        msg: 'request',
      },
    ]);
    // Fastify's own "incoming request" / "request completed" pair is off.
    expect(lines.filter((l) => /incoming request|request completed/.test(l.msg))).toEqual([]);
  });
});
