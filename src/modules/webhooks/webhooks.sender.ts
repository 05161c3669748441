import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget, TargetNotPublic, type Resolver, type TargetRules } from './webhooks.targets.js';

/** How much of an answer the delivery log keeps. */
export const EXCERPT_BYTES = 1024;

export interface SendResult {
  statusCode: number | null;
  excerpt: string | null;
  /** why it is not a delivery, when no 2xx came (null for a plain non-2xx status: the status says it) */
  error: string | null;
  latencyMs: number;
  /** the target is not public: nothing was sent */
  refused?: true;
}

export const isDelivered = (r: SendResult) => r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;

/** Text a PostgreSQL column can hold (no NUL). */
const storable = (text: string) => text.replaceAll('\u0000', '\uFFFD');

/**
 * POSTs one webhook: the target's name resolved and every address checked first, the connection made to a
 * checked address; `timeoutMs` for the whole exchange; redirects not followed (a 3xx is a failure); at most
 * EXCERPT_BYTES of the answer read.
 */
export async function sendWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; rules: TargetRules; resolve: Resolver },
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  let addresses;
  try {
    url = new URL(target);
    addresses = await resolveTarget(url, options.rules, options.resolve);
  } catch (error) {
    const refused = error instanceof TargetNotPublic ? { refused: true as const } : {};
    return { statusCode: null, excerpt: null, error: errorText(error), latencyMs: elapsed(), ...refused };
  }
  const [chosen] = addresses;
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, addresses);
    else callback(null, chosen!.address, chosen!.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve({ ...result, latencyMs: elapsed() });
    };
    const request = client.request({
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      agent: false,
      lookup,
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'svc-webhooks/1',
      },
    });
    const timer = setTimeout(
      () => finish({ statusCode: null, excerpt: null, error: `no answer within ${options.timeoutMs / 1000} s` }),
      options.timeoutMs,
    );
    request.on('error', (error) => finish({ statusCode: null, excerpt: null, error: errorText(error) }));
    request.on('response', (response) => {
      const status = response.statusCode ?? null;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const excerpt = storable(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8'));
        const location = response.headers.location;
        const error =
          status !== null && status >= 300 && status < 400
            ? `redirects are not followed${location ? ` (Location: ${storable(location).slice(0, 200)})` : ''}`
            : null;
        finish({ statusCode: status, excerpt: excerpt === '' ? null : excerpt, error });
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= EXCERPT_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(body);
  });
}

/** Node's words for a failed connect name the address it tried ("connect ECONNREFUSED 10.0.0.7:443"): not kept. */
const CONNECT_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

function errorText(error: unknown): string {
  if (error instanceof Error && 'syscall' in error && error.syscall === 'connect') {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : 'unknown';
    return `${CONNECT_FAILURES[code] ?? 'could not connect'} (${code})`;
  }
  return storable(error instanceof Error ? error.message : String(error)).slice(0, 500);
}
