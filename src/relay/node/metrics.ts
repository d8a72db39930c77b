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
  // Counted in plain numbers on the request's path and handed to prom-client when it collects (a scrape): its
  // labels() builds a label object, a bound function and a hash string per call, five calls per award.
  const tally = <L extends string>(counter: InstanceType<typeof Counter<string>>, pending: Map<L, number>) => {
    for (const [label, count] of pending) if (count > 0) counter.labels(label).inc(count);
    pending.clear();
  };
  const pendingAwards = new Map<string, number>();
  const pendingLimited = new Map<string, number>();
  const pendingStoreErrors = new Map<string, number>();
  const pendingRequests = new Map<string, number>();
  const pendingLedger = new Map<string, number>();
  const add = (pending: Map<string, number>, label: string) => pending.set(label, (pending.get(label) ?? 0) + 1);
  let inFlightNow = 0;
  const awards = new Counter({
    name: 'qp_relay_awards_total',
    help: 'Awards handled, by outcome (ok, rejected: final, retry: the client sends again, refused: policy or access, rate_limited)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      tally(this, pendingAwards);
    },
  });
  const limited = new Counter({
    name: 'qp_relay_rate_limited_total',
    help: 'Hits refused by a rate limit (429), by limit',
    labelNames: ['limit'],
    registers: [registry],
    collect() {
      tally(this, pendingLimited);
    },
  });
  new Counter({
    name: 'qp_relay_counter_store_errors_total',
    help: 'Rate-limit store failures, by what the relay did (open: allowed, closed: 503)',
    labelNames: ['behaviour'],
    registers: [registry],
    collect() {
      tally(this, pendingStoreErrors);
    },
  });
  new Counter({
    name: 'qp_relay_requests_total',
    help: 'HTTP requests answered, by status class',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      tally(this, pendingRequests);
    },
  });
  const ledger = new Counter({
    name: 'qp_relay_ledger_entries_total',
    help: 'Ledger entries appended, or lost because the ledger store failed (the awards were answered as usual), by result',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      tally(this, pendingLedger);
    },
  });
  const webhooks = new Counter({
    name: 'qp_relay_webhook_attempts_total',
    help: 'Webhook attempts by result: delivered (2xx), failed (retried later), dead (the last attempt failed: a dead letter), gone (410)',
    labelNames: ['result'],
    registers: [registry],
  });
  new Gauge({
    name: 'qp_relay_requests_in_flight',
    help: 'HTTP requests being handled now',
    registers: [registry],
    collect() {
      this.set(inFlightNow);
    },
  });
  const upstream = new Histogram({
    name: 'qp_relay_upstream_duration_seconds',
    help: 'Calls to the Quest Points Service, retries included, by method and result (2xx..5xx, timeout, network, invalid_response)',
    labelNames: ['method', 'result'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // One child per method and result, made once (labels() makes a new one per call).
  const upstreamChildren = new Map<string, { observe(value: number): void }>();
  const upstreamChild = (method: string, result: string) => {
    const key = `${method} ${result}`;
    let child = upstreamChildren.get(key);
    if (!child) {
      child = upstream.labels(method, result);
      upstreamChildren.set(key, child);
    }
    return child;
  };
  for (const outcome of ['ok', 'rejected', 'retry', 'refused', 'rate_limited']) awards.labels(outcome).inc(0);
  for (const limit of ['perPlayer', 'perIp']) limited.labels(limit).inc(0);
  for (const result of ['appended', 'failed']) ledger.labels(result).inc(0);
  for (const result of ['delivered', 'failed', 'dead', 'gone']) webhooks.labels(result).inc(0);
  return {
    award: (label) => add(pendingAwards, label),
    limited: (limit) => add(pendingLimited, limit),
    storeError: (behaviour) => add(pendingStoreErrors, behaviour),
    request: (status) => add(pendingRequests, STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`),
    inFlight: (delta) => {
      inFlightNow += delta;
    },
    upstream: (method, result, seconds) => upstreamChild(method, result).observe(seconds),
    ledger: (result, entries) => pendingLedger.set(result, (pendingLedger.get(result) ?? 0) + entries),
    // A few a second at most: counted at once.
    webhook: (result) => webhooks.labels(result).inc(),
    expose: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}

/** The status classes' labels, made once. */
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
