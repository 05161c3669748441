import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { verifyWebhook } from '../../client/src/webhooks.js';
import { sendWebhook } from '../../src/modules/webhooks/webhooks.sender.js';
import { newSecret, signedHeaders } from '../../src/modules/webhooks/webhooks.signing.js';
import { systemResolver } from '../../src/modules/webhooks/webhooks.targets.js';

/** One POST as the receiver got it: when its body had arrived (performance.now(), ms), its headers and body. */
export interface Arrival {
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  arrivals: Arrival[];
  /** Resolves once `count` POSTs have arrived since the last reset (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

/**
 * A webhook receiver as small as one can be: node:http on 127.0.0.1, every POST answered 200 as soon as its body
 * is in, nothing checked while it runs (the bench verifies the signatures afterwards, off the clock).
 */
export async function startReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  let waiting: { count: number; done: () => void } | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push({ at: performance.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
      if (waiting && arrivals.length >= waiting.count) waiting.done();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    waitFor(count, timeoutMs) {
      if (arrivals.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting = null;
          reject(new Error(`webhooks: ${arrivals.length} of ${count} deliveries arrived within ${timeoutMs / 1000} s`));
        }, timeoutMs);
        waiting = {
          count,
          done: () => {
            clearTimeout(timer);
            waiting = null;
            resolve();
          },
        };
      });
    },
    reset() {
      arrivals.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface Tarpit {
  url: string;
  /** connections accepted since the start */
  accepted(): number;
  /** connections open now, and the most open at once */
  held(): number;
  mostHeld(): number;
  close(): Promise<void>;
}

/**
 * A tarpit: a TCP server on 127.0.0.1 that accepts every connection, reads it and never answers a byte (an abusive or dead
 * receiver): each attempt to it lasts until the dispatcher's timeout.
 */
export async function startTarpit(): Promise<Tarpit> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let mostHeld = 0;
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    mostHeld = Math.max(mostHeld, sockets.size);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.resume(); // reads the request (and sees the dispatcher hang up), never answers
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accepted: () => accepted,
    held: () => sockets.size,
    mostHeld: () => mostHeld,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The receiver's floor: `count` POSTs of a delivery-sized signed body sent by the server's own sender
 * (`sendWebhook`: a new connection each, as the dispatcher makes them) from this process, `concurrency` at a
 * time as the dispatcher attempts them, without a database. Deliveries per second.
 */
export async function senderFloor(url: string, count: number, concurrency = 8): Promise<number> {
  const secret = newSecret();
  const body = (n: number) =>
    JSON.stringify({
      id: `evt_floor${String(n).padStart(20, '0')}`,
      type: 'accounting_record.ready_for_export',
      timestamp: new Date().toISOString(),
      account_id: 'bench',
      data: { object: 'accounting_record', id: `accr_floor${String(n).padStart(20, '0')}`, version: 2 },
    });
  let next = 0;
  let failed = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const text = body(n);
      const headers = signedHeaders([secret], `evt_floor${n}`, new Date(), text);
      const result = await sendWebhook(url, text, headers, {
        timeoutMs: 10_000,
        rules: { allowPrivate: true },
        resolve: systemResolver,
      });
      if (result.statusCode !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  if (failed > 0) throw new Error(`webhooks floor: ${failed} of ${count} POSTs not answered 200`);
  return count / seconds;
}

/** The p-th percentile (0–100) of numbers, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface DeliveryFigures {
  /** Distinct events delivered and verified. */
  delivered: number;
  /** Deliveries of an event already delivered (at least once: allowed, counted apart). */
  duplicates: number;
  /** Delivered events ÷ (last delivery − first commit), per second. */
  rate: number;
  /** Commit (the API's answer) to the first delivery of each event, ms. */
  p50: number;
  p99: number;
  max: number;
}

/**
 * Verifies every arrival with the SDK's verifier (a delivery that fails it throws: the figure counts signed
 * deliveries only), matches each event to its record's commit time (`committed`: record id → performance.now()
 * when the API answered the change), and measures the delay and the rate. Each record must have been delivered.
 */
export async function deliveryFigures(
  secret: string,
  arrivals: readonly Arrival[],
  committed: ReadonlyMap<string, number>,
): Promise<DeliveryFigures> {
  const firstArrival = new Map<string, number>();
  const seen = new Set<string>();
  let duplicates = 0;
  for (const arrival of arrivals) {
    const event = await verifyWebhook(secret, arrival.body, arrival.headers);
    if (!('type' in event) || event.type !== 'accounting_record.ready_for_export') {
      throw new Error(`webhooks: an unexpected delivery: ${arrival.body.slice(0, 200)}`);
    }
    if (seen.has(event.id)) {
      duplicates++;
      continue;
    }
    seen.add(event.id);
    const record = event.data.id;
    if (!committed.has(record)) throw new Error(`webhooks: a delivery for a record not moved here: ${record}`);
    firstArrival.set(record, Math.min(firstArrival.get(record) ?? Infinity, arrival.at));
  }
  const missing = [...committed.keys()].filter((id) => !firstArrival.has(id));
  if (missing.length > 0) throw new Error(`webhooks: ${missing.length} records' events not delivered`);
  const delays = [...firstArrival].map(([id, at]) => at - committed.get(id)!);
  const first = Math.min(...committed.values());
  const last = Math.max(...firstArrival.values());
  return {
    delivered: firstArrival.size,
    duplicates,
    rate: firstArrival.size / ((last - first) / 1000),
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    max: Math.max(...delays),
  };
}
