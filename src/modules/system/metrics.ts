import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  /** What /metrics answers: this process's metrics, or in a cluster worker the whole set's. */
  text(): Promise<string>;
}

/**
 * How a process that is one of several reports: given its own registry, the text of the set (src/cluster-worker.ts:
 * the cluster's primary aggregates every worker's, with prom-client's AggregatorRegistry).
 */
export type MetricsScope = (local: Registry) => () => Promise<string>;

/** Request counts and latencies per route template and status, plus the process's default metrics. */
export function registerMetrics(app: FastifyInstance, scope?: MetricsScope): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests served',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // Each (method, route, status) keeps its labelled children: prom-client would otherwise hash the labels of
  // every observation (a few percent of a small request: docs/performance.md).
  const children = new Map<
    string,
    { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof duration.labels> }
  >();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      const status = String(reply.statusCode);
      child = {
        count: requests.labels({ method: request.method, route, status }),
        time: duration.labels({ method: request.method, route }),
      };
      children.set(key, child);
    }
    child.count.inc();
    child.time.observe(reply.elapsedTime / 1000);
    done();
  });
  return { registry, text: scope ? scope(registry) : () => registry.metrics() };
}
