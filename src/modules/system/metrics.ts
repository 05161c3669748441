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
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
  return { registry, text: scope ? scope(registry) : () => registry.metrics() };
}
