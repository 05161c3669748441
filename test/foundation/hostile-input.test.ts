import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeServed, type HttpApi, type HttpResponse } from '../support/reliability.js';
import { errorBody } from '../support/expect.js';
import { valuesUrl } from '../support/field-values.js';
import type { RunningServer } from '../support/processes.js';

/** The largest answer a hostile body may get (issue 28: "answered 4xx with bodies ≤ 16 KB"). */
const SMALL = 16 * 1024;

/** POSTs `body` with its Content-Length as one write, and reads the answer. */
function post(base: string, path: string, body: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(new URL(path, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
    });
    request.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Sends only the head of a POST whose Content-Length says `length`, and reads the answer: a server that answers from
 * the head alone answers; one that waited for the body would hang until the ceiling.
 */
function postHead(base: string, path: string, length: number) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(new URL(path, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': length },
    });
    request.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        request.destroy();
        resolve({ status: res.statusCode ?? 0, text });
      });
    });
    request.on('error', reject);
    request.flushHeaders();
  });
}

const members = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `"m${from + i}":1`).join(',');

/**
 * The attacks of issue 28's finding 1, replayed against the real server on each dialect: one unauthenticated body
 * of half a million members, and a token holder's batch bodies built to make the validator write one error per
 * member. Each is answered 4xx in a few KB, and the server's log never carries a body or a whole error list.
 */
describeServed('hostile bodies (issue 28, finding 1)', (t) => {
  let server: RunningServer;
  let api: HttpApi;
  let fieldId: string;
  beforeAll(async () => {
    server = await t.served.start({ SIGN_IN_RATE_LIMIT_MAX: '0', LOG_LEVEL: 'info' });
    api = await t.served.client(server.url, ['fields.write', 'field_values.write', 'field_values.read']);
    fieldId = (await api.create('/v1/fields', { name: 'GL', group: 'ACCOUNTING' })).body.svc_id;
  });
  afterAll(async () => {
    await t.served.stopServers();
  });

  it('refuses a sign-in body of 500,000 members from its Content-Length, before a byte of it is read', async () => {
    const body = `{${members(500_000)}}`;
    expect(Buffer.byteLength(body)).toBeGreaterThan(5_000_000);
    const res = await postHead(server.url, '/auth/session', Buffer.byteLength(body));
    expect(res.status).toBe(413);
    expect(res.text.length).toBeLessThan(SMALL);
    expect(JSON.parse(res.text)).toEqual(errorBody('PAYLOAD_TOO_LARGE', { details: { limit_bytes: 16384 } }));
    // An honest client a little over the limit, sending its whole body, gets the answer (the rest is read, dropped).
    const over = await post(
      server.url,
      '/auth/session',
      `{"email":"a@example.com","password":"${'x'.repeat(20_000)}"}`,
    );
    expect(over.status).toBe(413);
    // The largest valid sign-in, every character written as an escape as ASCII-only encoders do, is read.
    const longest = JSON.stringify({ email: '😀'.repeat(320), password: '😀'.repeat(1024) }).replace(
      /[\ud800-\udfff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16)}`,
    );
    expect(Buffer.byteLength(longest)).toBeGreaterThan(15_000);
    expect((await post(server.url, '/auth/session', longest)).status).toBe(401);
  });

  it('refuses a batch with more members than any valid batch as it reads it, before parsing it', async () => {
    // Over the route's budget of separators (8,000 for a batch of 1000 values, and 1,000 of room) in its first ~100 KB.
    const body = `{"items":[{"value":"v",${members(12_000)}}]}`;
    const res = await post(server.url, valuesUrl(fieldId), body, {
      authorization: `Bearer ${api.token}`,
      'idempotency-key': 'hostile-members',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual(
      errorBody('INVALID_REQUEST', {
        details: {
          errors: [
            {
              path: '',
              message:
                'holds more members and items than any valid request of this operation (at most 9000 separators)',
            },
          ],
        },
      }),
    );
    expect((await api.get(valuesUrl(fieldId))).body.items).toEqual([]);
  });

  it('lists 100 of 3,000 unknown members of a batch item and counts the others, writing nothing', async () => {
    const body = `{"items":[{"value":"v",${members(3000)}}]}`;
    const res = await post(server.url, valuesUrl(fieldId), body, {
      authorization: `Bearer ${api.token}`,
      'idempotency-key': 'hostile-members-2',
    });
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(SMALL);
    const listed = Array.from({ length: 100 }, (_, i) => ({ path: `/items/0/m${i}`, message: expect.any(String) }));
    expect(JSON.parse(res.text)).toEqual(
      errorBody('INVALID_REQUEST', { details: { errors: listed, errors_omitted: 2900 } }),
    );
    expect(JSON.parse(res.text).message).toMatch(
      /^The request is invalid: \/items\/0\/m0 is not allowed; .*; and 2990 more$/,
    );
    expect((await api.get(valuesUrl(fieldId))).body.items).toEqual([]);
  });

  it('answers an array over its maxItems by its length alone, without checking its items', async () => {
    const body = `{"items":[${Array.from({ length: 1500 }, () => '1').join(',')}]}`;
    const res = await post(server.url, valuesUrl(fieldId), body, {
      authorization: `Bearer ${api.token}`,
      'idempotency-key': 'hostile-items',
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual(
      errorBody('INVALID_REQUEST', {
        details: { errors: [{ path: '/items', message: expect.any(String) }] },
      }),
    );
  });

  it('caps the problems of a batch at 100 and counts the rest, whatever finds them', async () => {
    const items = Array.from({ length: 150 }, () => ({ value: 7 }));
    const res: HttpResponse = await api.create(valuesUrl(fieldId), { items });
    expect(res.status).toBe(400);
    const listed = Array.from({ length: 100 }, (_, i) => ({ path: `/items/${i}/value`, message: expect.any(String) }));
    expect(res.body).toEqual(errorBody('INVALID_REQUEST', { details: { errors: listed, errors_omitted: 50 } }));
  });

  it('never logs a body or a whole list of problems', async () => {
    await t.served.stopServers('SIGTERM');
    const { stdout } = await server.exited;
    const lines = stdout.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(5);
    const longest = Math.max(...lines.map((line) => line.length));
    expect(longest).toBeLessThan(2048);
    expect(stdout).not.toContain('m12345');
  });
});
