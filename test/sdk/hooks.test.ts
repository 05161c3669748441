import { expect, it } from 'vitest';
import { SvcClient, SvcUnavailableError, type SandboxAccount, type SvcClientOptions } from '../../client/src/index.js';
import { storedFields } from '../support/stored.js';
import { ADMIN_TOKEN, SANDBOX } from '../support/sandbox.js';
import { until } from '../support/wait.js';
import { describeLive, type LiveServer } from './live-server.js';
import { steppedClock } from './time.js';

/** Jitter at its middle: backoff is half its cap, a wait the server asked for 5 % longer. */
const random = () => 0.5;

/** A sandbox account of the test's own, and a function that sets its client's next fault. */
async function sandboxAccount(live: LiveServer) {
  const operator = new SvcClient({ baseUrl: live.url, token: ADMIN_TOKEN });
  const account: SandboxAccount = await operator.sandbox.createAccount();
  const fault = (f: Parameters<typeof operator.sandbox.setFault>[1]) => operator.sandbox.setFault(account.client_id, f);
  return { account, fault };
}

/** A client of the account whose hooks write down every attempt, answer and retry. */
function recordingClient(live: LiveServer, account: SandboxAccount, more: Partial<SvcClientOptions> = {}) {
  const events: unknown[][] = [];
  const client = new SvcClient({
    ...{ baseUrl: live.url, clientId: account.client_id, clientSecret: account.client_secret, random },
    onRequest: async ({ method, path, attempt, headers }) => {
      await Promise.resolve(); // a hook may be async: the attempt waits for it
      if (path !== '/oauth2/token') headers['x-request-id'] = `hooked-${attempt}`;
      events.push(['request', method, path, attempt, headers['idempotency-key'] ?? null]);
    },
    onResponse: ({ path, attempt, status, headers, requestId, durationMs }) =>
      void events.push(['response', path, attempt, status, requestId, durationMs, headers.get('retry-after')]),
    onRetry: ({ path, attempt, status, error, delayMs }) =>
      void events.push(['retry', path, attempt, status, error.error_code, delayMs]),
    ...more,
  });
  return { client, events };
}

describeLive(
  'SDK: onRequest, onResponse and onRetry against a sandbox with faults',
  (s) => {
    it('sees every attempt: headers added by onRequest reach svc, answers with their duration, retries with their wait', async () => {
      const { account, fault } = await sandboxAccount(s.live);
      const clock = steppedClock();
      const { client, events } = recordingClient(s.live, account, {
        now: clock.now,
        sleep: clock.sleep,
        // Each exchange takes 25 ms of the test's clock.
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          clock.pass(25);
          return response;
        },
      });
      await fault({ kind: '503', count: 1, retry_after: 2 });
      const page = client.fields.list({ limit: 5 });
      await until('the wait before the retry', () => clock.waiting() === 1);
      clock.advance();
      expect((await page).items).toEqual([]);

      const token = expect.stringMatching(/^req_/);
      expect(events).toEqual([
        ['request', 'POST', '/oauth2/token', 1, null],
        ['response', '/oauth2/token', 1, 200, token, 25, null],
        ['request', 'GET', '/v1/fields', 1, null],
        // svc echoed the X-Request-Id onRequest set.
        ['response', '/v1/fields', 1, 503, 'hooked-1', 25, '2'],
        ['retry', '/v1/fields', 1, 503, 'SERVICE_UNAVAILABLE', 2100],
        ['request', 'GET', '/v1/fields', 2, null],
        ['response', '/v1/fields', 2, 200, 'hooked-2', 25, null],
      ]);
      expect(clock.sleeps).toEqual([2100]);
    });

    it('retries a write whose answer was lost with the same Idempotency-Key, and svc replays the stored answer', async () => {
      const { account, fault } = await sandboxAccount(s.live);
      const clock = steppedClock({ auto: true });
      const replayed: (string | null)[] = [];
      const { client, events } = recordingClient(s.live, account, {
        now: clock.now,
        sleep: clock.sleep,
        onResponse: ({ path, headers }) =>
          void (path === '/v1/fields' && replayed.push(headers.get('idempotent-replayed'))),
      });
      await client.fields.list(); // the token first: the fault below is for the write
      await fault({ kind: 'drop_after_commit' });
      const field = await client.fields.create({ name: 'Once', group: 'ERP' }, { idempotencyKey: 'once-1' });

      expect(events.filter((e) => e[2] === '/v1/fields' && e[1] === 'POST')).toEqual([
        ['request', 'POST', '/v1/fields', 1, 'once-1'],
        ['request', 'POST', '/v1/fields', 2, 'once-1'],
      ]);
      // No answer came: backoff, full jitter over 250 ms.
      expect(events.filter((e) => e[0] === 'retry')).toEqual([['retry', '/v1/fields', 1, 0, 'NETWORK_ERROR', 125]]);
      expect(replayed).toEqual([null, 'true']);
      expect((await storedFields(s.live.ctx, account.account_id)).map((f) => f.svc_id)).toEqual([field.svc_id]);
    });

    it('does not retry a write without an Idempotency-Key after a 503, but does after a 429 (svc did not run it)', async () => {
      const { account, fault } = await sandboxAccount(s.live);
      const clock = steppedClock({ auto: true });
      const { client, events } = recordingClient(s.live, account, { now: clock.now, sleep: clock.sleep });
      const created = () => client.clients.create({ scopes: ['fields.read'] });
      const writes = () => events.filter((e) => e.includes('/internal/v1/clients'));

      await client.fields.list();
      await fault({ kind: '503', retry_after: 0 });
      const refused = await created().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SvcUnavailableError);
      expect(refused).toMatchObject({ status: 503, error_code: 'SERVICE_UNAVAILABLE' });
      expect(writes().filter((e) => e[0] === 'request')).toHaveLength(1);

      events.length = 0;
      await fault({ kind: '429', retry_after: 1 });
      expect(await created()).toMatchObject({ scopes: ['fields.read'] });
      expect(writes()).toEqual([
        ['request', 'POST', '/internal/v1/clients', 1, null],
        ['response', '/internal/v1/clients', 1, 429, 'hooked-1', 0, '1'],
        ['retry', '/internal/v1/clients', 1, 429, 'RATE_LIMITED', 1050],
        ['request', 'POST', '/internal/v1/clients', 2, null],
        ['response', '/internal/v1/clients', 2, 200, 'hooked-2', 0, null],
      ]);
    });
  },
  SANDBOX,
);
