import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { authService } from '../../src/modules/auth/auth.service.js';
import { ADMIN, item } from '../support/accounting.js';
import { newAccountId } from '../support/context.js';
import { expectErrorShape } from '../support/expect.js';
import { describeServed, report, sleep, type HttpApi } from '../support/reliability.js';
import { businessState } from '../support/reliability-state.js';

/** Long enough that a neighbour's five reads end before the slow clients are cut, on any machine this runs on. */
const REQUEST_TIMEOUT_MS = 5000;
const BODY_LIMIT = 1024 * 1024;
const RATE_LIMIT = 30;
const TOKEN_LIMIT = 8;

/** Sends headers, then one body byte every `everyMs`: resolves when the server closes the socket. */
function dribble(
  url: string,
  token: string,
  everyMs: number,
  maxMs: number,
): Promise<{ closedAfterMs: number; closedAt: number; bytesSent: number; answer: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(port), hostname);
    let bytesSent = 0;
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    const body = JSON.stringify({ name: 'slow', group: 'USER' }).padEnd(200, ' ');
    socket.on('connect', () => {
      socket.write(
        `POST /v1/fields HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
          `Idempotency-Key: ${randomUUID()}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      timer = setInterval(() => {
        if (bytesSent < body.length && !socket.destroyed) socket.write(body[bytesSent++]!);
      }, everyMs);
    });
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      const closedAt = Date.now();
      resolve({ closedAfterMs: closedAt - started, closedAt, bytesSent, answer });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept a slow client for ${maxMs} ms`));
    }, maxMs);
  });
}

/** OWASP API4 (unrestricted resource consumption) against a real `node dist/server.js`. */
describeServed('abuse (OWASP API4)', (t) => {
  let base: string;
  const figures: Record<string, number> = {};
  beforeAll(async () => {
    base = (
      await t.served.start({
        RATE_LIMIT_MAX: String(RATE_LIMIT),
        RATE_LIMIT_WINDOW_SECONDS: '3600',
        TOKEN_RATE_LIMIT_MAX: String(TOKEN_LIMIT),
        BODY_LIMIT_BYTES: String(BODY_LIMIT),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      })
    ).url;
  });
  afterAll(() => {
    report(`abuse [${t.dialect}]`, figures);
  });
  // Token requests from this address are counted: every test shares TOKEN_LIMIT, spent in this order.
  let writer: HttpApi;
  let neighbour: HttpApi;
  beforeAll(async () => {
    writer = await t.served.client(base, ADMIN);
    neighbour = await t.served.client(base, ['fields.read']);
  });

  it('answers 413 over the body limit and 400 over 1000 items, storing nothing', async () => {
    const fieldId = await writer.newField({ name: 'limits', group: 'USER' });
    const before = await businessState(t.served.db, [writer.accountId]);
    const huge = await writer.post(
      `/v1/fields/${fieldId}/values`,
      { items: [{ value: 'x'.repeat(BODY_LIMIT) }] },
      { 'idempotency-key': randomUUID() },
    );
    expect(huge.status).toBe(413);
    expectErrorShape(huge, 'PAYLOAD_TOO_LARGE');
    const batches: [string, 'POST' | 'PUT' | 'DELETE', unknown][] = [
      [`/v1/fields/${fieldId}/values`, 'POST', { items: Array.from({ length: 1001 }, (_, i) => ({ value: `v${i}` })) }],
      [
        `/v1/fields/${fieldId}/values`,
        'PUT',
        { items: Array.from({ length: 1001 }, (_, i) => ({ remote_id: `r${i}`, data: { value: 'x' } })) },
      ],
      [
        `/v1/fields/${fieldId}/values`,
        'DELETE',
        { items: Array.from({ length: 1001 }, (_, i) => ({ remote_id: `r${i}` })) },
      ],
      [
        '/internal/v1/accounting/records',
        'POST',
        { items: Array(1001).fill(item({ amount: { amount: 1, currency: 'USD' } })) },
      ],
      [
        '/v3/accounting/records/export-results',
        'POST',
        {
          results: Array.from({ length: 1001 }, (_, i) => ({
            accounting_record_id: `r${i}`,
            failure: { error_message: 'x' },
          })),
        },
      ],
    ];
    for (const [path, method, body] of batches) {
      const res = await writer.request(method, path, { body, headers: { 'idempotency-key': randomUUID() } });
      expect({ path, method, status: res.status }).toEqual({ path, method, status: 400 });
      expectErrorShape(res, 'INVALID_REQUEST');
      expect(res.body.details.errors).toEqual([
        { path: expect.stringMatching(/^\/(items|results)$/), message: expect.stringContaining('1000') },
      ]);
    }
    expect(await businessState(t.served.db, [writer.accountId])).toEqual(before);
    figures.oversized_requests = 1 + batches.length;
  });

  it('cuts a client that dribbles its body slower than REQUEST_TIMEOUT_MS, and keeps serving others', async () => {
    const fieldsBefore = await businessState(t.served.db, [writer.accountId]);
    const slow = Promise.all([dribble(base, writer.token!, 250, 40_000), dribble(base, writer.token!, 250, 40_000)]);
    const latencies: number[] = [];
    await sleep(200);
    for (let i = 0; i < 5; i++) {
      const res = await neighbour.get('/v1/fields');
      expect(res.status).toBe(200);
      latencies.push(res.ms);
      await sleep(100);
    }
    const neighbourDoneAt = Date.now();
    const cut = await slow;
    for (const c of cut) {
      expect(c.bytesSent).toBeLessThan(200);
      expect(c.answer === '' || c.answer.startsWith('HTTP/1.1 408')).toBe(true);
    }
    figures.slow_client_cut_after_ms = Math.max(...cut.map((c) => c.closedAfterMs));
    figures.neighbour_max_ms = Math.round(Math.max(...latencies));
    // Served while both slow clients held their connections: the neighbour's reads were all answered before either
    // was cut (an order of events, not a time limit).
    expect(neighbourDoneAt).toBeLessThan(Math.min(...cut.map((c) => c.closedAt)));
    // Cut by the request timeout (never before it), long before its body would have ended (bytesSent above: 50 s).
    expect(figures.slow_client_cut_after_ms).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    expect(await businessState(t.served.db, [writer.accountId])).toEqual(fieldsBefore);
  });

  it('answers 429 RATE_LIMITED to a client over its budget, not to its neighbour', async () => {
    const api = await t.served.client(base, ['fields.read']);
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT + 3; i++) statuses.push((await api.get('/v1/fields')).status);
    expect(statuses).toEqual([...Array(RATE_LIMIT).fill(200), 429, 429, 429]);
    const limited = await api.get('/v1/fields');
    expectErrorShape(limited, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await neighbour.get('/v1/fields')).status).toBe(200);
    figures.rate_limited_requests = statuses.length + 1;
  });

  it('throttles the token endpoint per address, so that secrets cannot be guessed', async () => {
    const creds = await authService.createClient(t.served.db, newAccountId(), ['fields.read']);
    const guess = (secret: string) =>
      fetch(new URL('/oauth2/token', base), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: creds.client_id,
          client_secret: secret,
        }),
      });
    const outcomes: number[] = [];
    for (let i = 0; i < TOKEN_LIMIT + 2; i++) outcomes.push((await guess(`svc_cs_guess_${i}`)).status);
    // 3 tokens were issued above (writer, neighbour, rate-limit client): the rest of the budget, then 429.
    const left = TOKEN_LIMIT - 3;
    expect(outcomes).toEqual([...Array(left).fill(401), ...Array(outcomes.length - left).fill(429)]);
    const right = await guess(creds.client_secret);
    expect(right.status).toBe(429);
    expect(await right.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    figures.token_guesses = outcomes.length + 1;
    figures.token_guesses_refused_429 = outcomes.length - left + 1;
  });
});
