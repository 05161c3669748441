import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { startServer } from '../support/processes.js';
import { storedFields } from '../support/stored.js';

/** One request on its own connection; the body is written in two parts so it stays in flight between them. */
function slowRequest(url: string, path: string, headers: Record<string, string>, body: string) {
  const req = http.request(`${url}${path}`, {
    method: 'POST',
    agent: false,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
  });
  const answer = new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
  });
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  return { answer, finish: () => req.end(body.slice(half)) };
}

describeEachDialect('graceful shutdown', (t) => {
  it('finishes the in-flight request after SIGTERM, then exits 0', async () => {
    const creds = await t.ctx.newClient(['fields.write']);
    const server = await startServer({ DATABASE_URL: t.ctx.database.url, RATE_LIMIT_MAX: '0' });
    try {
      const tokenRes = await fetch(`${server.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', connection: 'close' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: creds.client_id,
          client_secret: creds.client_secret,
        }),
      });
      expect(tokenRes.status).toBe(200);
      const { access_token: token } = (await tokenRes.json()) as { access_token: string };

      const inFlight = slowRequest(
        server.url,
        '/v1/fields',
        { authorization: `Bearer ${token}`, 'idempotency-key': 'drain-1' },
        JSON.stringify({ name: `Drained ${'x'.repeat(200)}`, group: 'USER' }),
      );
      await sleep(150); // the server has the headers and half the body
      server.child.kill('SIGTERM');
      await sleep(300);
      expect(server.child.exitCode).toBeNull(); // still draining
      inFlight.finish();

      const answer = await inFlight.answer;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ name: expect.stringMatching(/^Drained /), group: 'USER' });
      const exit = await server.exited;
      expect([exit.code, exit.signal]).toEqual([0, null]);
      expect(exit.stdout).toContain('draining in-flight requests, then exiting');

      expect(await storedFields(t.ctx, creds.account_id)).toHaveLength(1);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
