import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSeconds?: number;
  /** Stop after this many requests instead of after a duration. */
  amount?: number;
  /** Stop when this settles (the end of a backup that the load runs beside) instead of after a duration. */
  until?: Promise<unknown>;
  /** Requests each connection cycles through (paths of a sample, say). */
  requests?: { path: string }[];
  /** Changes each request (a new Idempotency-Key, the next batch...): keep it cheap, it runs in the load generator. */
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
}

/** Drives load with autocannon over loopback and returns throughput and latency percentiles (ms). */
export async function load(options: LoadOptions): Promise<LoadResult> {
  let instance: autocannon.Instance | undefined;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.url,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        connections: options.connections ?? 50,
        pipelining: 1,
        // A run of a fixed amount ends when autocannon next samples, once a second by default: its duration
        // was rounded up to whole seconds (100 export requests done in 6.1 s counted as 7 s, a seventh lost).
        // Sampling every 10 ms ends it within 10 ms of the last answer.
        ...(options.amount
          ? { amount: options.amount, sampleInt: 10 }
          : options.until
            ? { duration: 24 * 3600, sampleInt: 10 }
            : { duration: options.durationSeconds ?? 10 }),
        ...(options.requests ? { requests: options.requests } : {}),
        ...(options.setupRequest ? { requests: [{ setupRequest: options.setupRequest }] } : {}),
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    const stop = () => instance?.stop();
    options.until?.then(stop, stop);
  });
  return {
    requests: result.requests.total,
    // Requests over the run's whole time: autocannon's average is of whole seconds, coarse for short runs
    // (200 creates in 4 s measured as exactly 40,000 or 50,000 values/s).
    rps: result.requests.total / Math.max(result.duration, 0.01),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Several runs of one scenario as one: requests over their total time; the slowest slice's percentiles. */
export function combine(runs: LoadResult[]): LoadResult {
  const seconds = runs.reduce((t, r) => t + (r.rps > 0 ? r.requests / r.rps : 0), 0);
  const requests = runs.reduce((t, r) => t + r.requests, 0);
  return {
    requests,
    rps: seconds > 0 ? requests / seconds : 0,
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    non2xx: runs.reduce((t, r) => t + r.non2xx, 0),
    errors: runs.reduce((t, r) => t + r.errors, 0),
  };
}

/** A load's figures as a scenario's: its rate (times `per` items per request), percentiles and failures. */
export const rate = (r: LoadResult, per = 1) => ({
  throughput: r.rps * per,
  p50: r.p50,
  p99: r.p99,
  errors: r.errors + r.non2xx,
});
