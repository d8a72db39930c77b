import type { MetricsSink } from '../metrics.js';
import { importPeer } from './peer.js';

/**
 * The relay's Prometheus metrics (prom-client, an optional peer dependency: `npm install prom-client`), on a
 * registry of its own (never prom-client's global one). GET /metrics serves them. startRelay uses one by default
 * when prom-client is installed.
 */
export async function createPrometheusMetrics(): Promise<MetricsSink> {
  const { Counter, Gauge, Histogram, Registry } = await importPeer('prom-client', () => import('prom-client'), 'Prometheus metrics (GET /metrics)');
  const registry = new Registry();
  const awards = new Counter({
    name: 'qp_relay_awards_total',
    help: 'Awards handled, by outcome (ok, rejected: final, retry: the client sends again, refused: policy or access, rate_limited)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const limited = new Counter({
    name: 'qp_relay_rate_limited_total',
    help: 'Hits refused by a rate limit (429), by limit',
    labelNames: ['limit'],
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'qp_relay_counter_store_errors_total',
    help: 'Rate-limit store failures, by what the relay did (open: allowed, closed: 503)',
    labelNames: ['behaviour'],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'qp_relay_requests_total',
    help: 'HTTP requests answered, by status class',
    labelNames: ['status'],
    registers: [registry],
  });
  const inFlight = new Gauge({ name: 'qp_relay_requests_in_flight', help: 'HTTP requests being handled now', registers: [registry] });
  const upstream = new Histogram({
    name: 'qp_relay_upstream_duration_seconds',
    help: 'Calls to the Quest Points Service, retries included, by method and result (2xx..5xx, timeout, network, invalid_response)',
    labelNames: ['method', 'result'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  for (const outcome of ['ok', 'rejected', 'retry', 'refused', 'rate_limited']) awards.labels(outcome).inc(0);
  for (const limit of ['perPlayer', 'perIp']) limited.labels(limit).inc(0);
  return {
    award: (label) => awards.labels(label).inc(),
    limited: (limit) => limited.labels(limit).inc(),
    storeError: (behaviour) => storeErrors.labels(behaviour).inc(),
    request: (status) => requests.labels(`${Math.floor(status / 100)}xx`).inc(),
    inFlight: (delta) => inFlight.inc(delta),
    upstream: (method, result, seconds) => upstream.labels(method, result).observe(seconds),
    expose: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
