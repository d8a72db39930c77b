import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AwardOutcome } from './award.js';
import type { Upstream, UpstreamResult } from './upstream.js';

/** Label of one award's outcome: ok, rejected (final), retry (send again later), refused by the relay's policy, limited. */
export type AwardLabel = 'ok' | 'rejected' | 'retry' | 'refused' | 'rate_limited';

/** The relay's Prometheus metrics, on a registry of its own (never prom-client's global one). */
export interface RelayMetrics {
  registry: Registry;
  award(outcome: AwardOutcome): void;
  limited(limit: 'perPlayer' | 'perIp'): void;
  storeError(behaviour: 'open' | 'closed'): void;
  request(status: number): void;
  inFlight: Gauge;
  upstream: Histogram<'method' | 'result'>;
}

export function createRelayMetrics(): RelayMetrics {
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
    registry,
    award: (outcome) => awards.labels(awardLabel(outcome)).inc(),
    limited: (limit) => limited.labels(limit).inc(),
    storeError: (behaviour) => storeErrors.labels(behaviour).inc(),
    request: (status) => requests.labels(`${Math.floor(status / 100)}xx`).inc(),
    inFlight,
    upstream,
  };
}

/** How the SDK will treat an award's answer: the same split as the batch endpoint's outcomes. */
export function awardLabel(outcome: AwardOutcome): AwardLabel {
  if ('refused' in outcome) {
    if (outcome.refused.status === 429) return 'rate_limited';
    return outcome.refused.status >= 500 ? 'retry' : 'refused';
  }
  const result = outcome.result;
  if (result.kind === 'failure') return 'retry';
  if (result.status >= 200 && result.status < 300) return 'ok';
  if (result.status >= 500 || [401, 408, 409, 429].includes(result.status)) return 'retry';
  return 'rejected';
}

const resultLabel = (result: UpstreamResult) => (result.kind === 'failure' ? result.reason : `${Math.floor(result.status / 100)}xx`);

/** The upstream client with every call timed into the histogram. */
export function timedUpstream(upstream: Upstream, metrics: RelayMetrics): Upstream {
  return {
    ...upstream,
    async send(request, options) {
      const stop = metrics.upstream.startTimer({ method: request.method });
      const result = await upstream.send(request, options);
      stop({ result: resultLabel(result) });
      return result;
    },
  };
}
