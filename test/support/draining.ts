import http from 'node:http';
import net from 'node:net';
import { until } from './wait.js';

/**
 * A POST on a connection of its own whose body is written in two parts, so that it stays in flight in between.
 * `received` resolves once the server has read its headers: the request asks `Expect: 100-continue`, which Node's
 * server answers as it parses them (svc registers no checkContinue), so the request is the server's from then on.
 */
export function slowPost(url: string, headers: Record<string, string>, body: string) {
  const req = http.request(url, {
    method: 'POST',
    agent: false,
    headers: {
      ...headers,
      expect: '100-continue',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    },
  });
  const received = new Promise<void>((resolve) => req.once('continue', () => resolve()));
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
  return { received, answer, finish: () => req.end(body.slice(half)) };
}

/** Whether a TCP connection to the server of `url` is accepted now (a bare connection: it makes no request). */
function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once the server of `url` refuses connections: it has closed its listener (a drain's last step). */
export async function untilClosed(url: string): Promise<void> {
  await until(`the listener of ${url} to close`, async () => !(await accepts(url)));
}
