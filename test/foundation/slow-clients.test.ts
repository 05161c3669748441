import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '../support/processes.js';
import { describeServed } from '../support/reliability.js';

/** What a connection saw before the server closed it. */
interface Closed {
  answer: string;
  /** Header bytes the client had sent when the server closed. */
  sent: number;
}

/**
 * Sends a request's head one byte at a time (a byte every `everyMs`), never finishing it, until the server closes
 * the connection. The ceiling turns a server that never closes into a failure; nothing else here measures time.
 */
function dribbleHeaders(base: string, everyMs: number): Promise<Closed> {
  const url = new URL(base);
  const head = `GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: ${'a'.repeat(100_000)}`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let sent = 0;
    let answer = '';
    const timer = setInterval(() => {
      if (sent < head.length && socket.writable) socket.write(head[sent++]!);
    }, everyMs);
    const ceiling = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept a connection that dribbled its headers for 45 s (${sent} bytes)`));
    }, 45_000);
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(ceiling);
      resolve({ answer, sent });
    });
  });
}

/** Makes one request on a kept-alive connection, then waits for the server to close the idle connection. */
function idleAfterOneRequest(base: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n\r\n`);
    });
    let answer = '';
    const ceiling = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server kept an idle connection for 45 s'));
    }, 45_000);
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(ceiling);
      resolve(answer);
    });
  });
}

/**
 * Issue 28, finding 10: a client that dribbled its header bytes was kept 32–54 s past REQUEST_TIMEOUT_MS (Node's
 * headersTimeout of 60 s, checked every 30 s). The server now takes its connection clocks from config and checks
 * them every second: the dribbler is answered 408 and cut soon after HEADERS_TIMEOUT_MS.
 */
describeServed(
  'slow clients',
  (t) => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await t.served.start({
        HEADERS_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '2000',
        KEEP_ALIVE_TIMEOUT_MS: '1000',
      });
    });
    afterAll(async () => {
      await t.served.stopServers();
    });

    it('cuts a connection that dribbles its headers, with 408, and goes on serving others', async () => {
      const closed = await dribbleHeaders(server.url, 50);
      expect(closed.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(closed.sent).toBeGreaterThan(0);
      const res = await fetch(new URL('/healthz', server.url));
      expect(res.status).toBe(200);
    });

    it('closes a kept-alive connection once it has been idle for KEEP_ALIVE_TIMEOUT_MS', async () => {
      const answer = await idleAfterOneRequest(server.url);
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toMatch(/keep-alive: timeout=1\b/i);
    });
  },
  { only: 'sqlite' },
);
