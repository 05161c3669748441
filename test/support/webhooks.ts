import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { expect, onTestFinished } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { CEILING_MS } from './wait.js';
import { nowMicros } from '../../src/lib/clock.js';
import {
  createDispatcher,
  type Dispatcher,
  type DispatcherOptions,
} from '../../src/modules/webhooks/webhooks.dispatcher.js';
import { ADMIN } from './accounting.js';
import type { Api } from './api.js';

export const WEBHOOKS = '/v1/webhooks';
export const EVENTS = '/v1/events';
export const webhookUrl = (id: string) => `${WEBHOOKS}/${id}`;
export const EVENT_ID = /^evt_[0-9a-z]{26}$/;
export const WEBHOOK_ID = /^whk_[0-9a-z]{26}$/;
export const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

/** Scopes of a caller that makes records, subscribes endpoints to their events and reads the feed. */
export const DELIVERY_SCOPES = [...ADMIN, 'webhooks.write', 'events.read'] as const;

/** A new endpoint of the account at `url`, taking `event_types`; its id and first secret. */
export async function subscribe(api: Api, url: string, event_types = ['accounting_record.ready_for_export']) {
  const res = await api.create(WEBHOOKS, { url, event_types });
  expect(res.status, res.text).toBe(200);
  return res.body as { id: string; secret: string };
}

/** The endpoint's delivery log (GET …/attempts), newest first. */
export const attemptsOf = async (api: Api, id: string, query: Record<string, string> = {}) => {
  const res = await api.get(`${webhookUrl(id)}/attempts`, query);
  expect(res.status, res.text).toBe(200);
  return res.body.items as any[];
};

/** How the receiver answers one request. */
export type Behaviour = 'ok' | 'fail' | 'hang' | 'hold' | 'drop' | 'redirect' | 'accepted';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  behaviour: Behaviour;
}

/** Resolves once `done()` holds, checked at each event `subscribe` reports; a generous ceiling turns a hang into a failure. */
async function until(what: string, done: () => boolean, subscribe: (check: () => void) => void): Promise<void> {
  if (done()) return;
  await new Promise<void>((resolve, reject) => {
    const ceiling = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), CEILING_MS);
    subscribe(() => {
      if (!done()) return;
      clearTimeout(ceiling);
      resolve();
    });
  });
}

/**
 * A webhook receiver: a real HTTP server on 127.0.0.1 that answers each request as planned (then 200), and keeps
 * what it received. Closed when the test finishes.
 */
export async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  plan(behaviours: Behaviour[]): void;
  /** resolves once `count` requests have been received */
  arrived(count: number): Promise<void>;
  /** answers 200 to the requests held so far ('hold': unanswered until the test lets them go) */
  release(): void;
}> {
  const received: Received[] = [];
  const held: http.ServerResponse[] = [];
  const listeners = new Set<() => void>();
  const planned: Behaviour[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const behaviour = planned.shift() ?? 'ok';
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), behaviour });
      for (const listener of listeners) listener();
      switch (behaviour) {
        case 'ok':
          res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
          return;
        case 'accepted':
          res.writeHead(204).end();
          return;
        case 'fail':
          res.writeHead(500, { 'content-type': 'text/plain' }).end('boom: the receiver failed');
          return;
        case 'redirect':
          res.writeHead(302, { location: `${url}/elsewhere` }).end();
          return;
        case 'drop':
          req.socket.destroy();
          return;
        case 'hang':
          return; // never answers: the dispatcher's timeout ends it
        case 'hold':
          held.push(res);
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url,
    received,
    plan: (behaviours) => planned.push(...behaviours),
    release: () => {
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    },
    arrived: (count) =>
      until(
        `${count} requests`,
        () => received.length >= count,
        (l) => listeners.add(l),
      ),
  };
}

/**
 * A tarpit: a real TCP server on 127.0.0.1 that accepts every connection and never answers (an attacker's
 * receiver, or a dead one). Its connections are held until the test drops them; closed when the test finishes.
 */
export async function startTarpit(): Promise<{
  url: string;
  /** connections open now */
  held(): number;
  /** resolves once `count` connections are open at once */
  holding(count: number): Promise<void>;
  /** ends one held connection (the attempt on it fails at once) */
  dropOne(): void;
  /** ends every held connection and stops accepting */
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const listeners = new Set<() => void>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.resume(); // reads the request (and sees the dispatcher hang up), never answers
    for (const listener of listeners) listener();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  onTestFinished(close);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => sockets.size,
    holding: (count) =>
      until(
        `${count} held connections`,
        () => sockets.size >= count,
        (l) => listeners.add(l),
      ),
    dropOne() {
      const [socket] = sockets;
      socket?.destroy();
    },
    close,
  };
}

/** A clock for dispatchers: the service's, moved on by `advance(seconds)`. Dispatchers may share one. */
export function testClock(options: { frozen?: boolean } = {}): { now(): number; advance(seconds: number): void } {
  let offset = 0;
  // Frozen: it stands still but for `advance` (a microsecond a reading, so that readings stay strictly increasing),
  // and what the test compares with it cannot depend on how fast the machine runs.
  const start = nowMicros();
  let readings = 0;
  const now = options.frozen ? () => start + offset + ++readings : () => nowMicros() + offset;
  return { now, advance: (seconds) => (offset += seconds * 1_000_000) };
}

/** A dispatcher over the test's database whose clock the test moves (`advance(seconds)`, or `clock`'s). */
export function testDispatcher(
  db: Db,
  options: Partial<DispatcherOptions> = {},
  clock = testClock(),
): Dispatcher & { advance(seconds: number): void } {
  const dispatcher = createDispatcher({
    db,
    allowPrivateTargets: true,
    now: clock.now,
    random: () => 0.5,
    // A ceiling, so that a busy machine's slow 200 is never a timeout; a test that plans a hang passes its own.
    timeoutMs: CEILING_MS,
    ...options,
  });
  return { ...dispatcher, advance: clock.advance };
}
