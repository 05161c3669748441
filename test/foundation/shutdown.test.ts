import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/context.js';
import { slowPost, untilClosed } from '../support/draining.js';
import { startServer } from '../support/processes.js';
import { storedFields } from '../support/stored.js';

describeEachDialect('graceful shutdown', (t) => {
  it('finishes the in-flight request after SIGTERM, then exits 0', async () => {
    const creds = await t.ctx.newClient(['fields.write']);
    // A request may take a minute (the drain's limit is that plus 15 s): the test's pace is not the server's concern.
    const server = await startServer({
      DATABASE_URL: t.ctx.database.url,
      RATE_LIMIT_MAX: '0',
      REQUEST_TIMEOUT_MS: '60000',
    });
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

      const inFlight = slowPost(
        `${server.url}/v1/fields`,
        { authorization: `Bearer ${token}`, 'idempotency-key': 'drain-1' },
        JSON.stringify({ name: `Drained ${'x'.repeat(200)}`, group: 'USER' }),
      );
      await inFlight.received; // the server has the headers and half the body
      server.child.kill('SIGTERM');
      // The drain's last step: the listener closes (once no request has come for a second), the request in flight
      // still unfinished. The server waits for it.
      await untilClosed(server.url);
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
