import type { StoreErrorBehaviour } from './counter-store.js';
import type { Upstream, UpstreamResult } from './upstream.js';

/**
 * Label of one award's outcome: the batch result's own outcome (ok, rejected: final, retry: send again later), with
 * the relay's own refusals told apart: refused (its policy or access rule, final) and rate_limited (a retry).
 */
export type AwardLabel = 'ok' | 'rejected' | 'retry' | 'refused' | 'rate_limited';

/** Prometheus text exposition, as GET /metrics serves it. */
export interface MetricsText {
  contentType: string;
  body: string;
}

/** What one webhook attempt came to (economy/webhooks.ts). */
export type WebhookResult = 'delivered' | 'failed' | 'dead' | 'gone';

/**
 * Where the relay counts what it does. The core only calls it; it never imports a metrics library. On Node,
 * `createPrometheusMetrics()` (quest-points/relay/node, prom-client) is one; `startRelay` uses it by default.
 * A sink without `expose` (the default `noMetrics`) means GET /metrics answers 404.
 */
export interface MetricsSink {
  /** One award answered, by its outcome. */
  award(label: AwardLabel): void;
  /** One request refused by a rate limit, by the limit. */
  limited(limit: 'perPlayer' | 'perIp'): void;
  /** One counter store failure, by what the relay did about it (let the request through, or 503). */
  storeError(behaviour: StoreErrorBehaviour): void;
  /** One HTTP answer, by its status. */
  request(status: number): void;
  /** +1 when a request starts, -1 when it is answered. */
  inFlight(delta: 1 | -1): void;
  /** One call to the service, retries included: its method, result (2xx..5xx, or a failure reason) and duration. */
  upstream(method: string, result: string, seconds: number): void;
  /** Ledger entries appended, or lost because the ledger store failed (economy/ledger.ts); optional. */
  ledger?(result: 'appended' | 'failed', entries: number): void;
  /** One webhook attempt, by result: delivered (2xx), failed (retried later), dead (its last attempt failed), gone (410); optional. */
  webhook?(result: WebhookResult): void;
  /** The text GET /metrics serves; absent: /metrics answers 404. */
  expose?(): Promise<MetricsText>;
}

/** Counts nothing, serves no /metrics: the default of createRelay (Workers, Deno, Bun, a framework mount). */
export const noMetrics: MetricsSink = {
  award: () => {},
  limited: () => {},
  storeError: () => {},
  request: () => {},
  inFlight: () => {},
  upstream: () => {},
};

/**
 * The sink as the relay calls it, each method bound once: the routes hand it a label (outcome.ts decides it), and
 * the sink imports nothing of the relay's routes.
 */
export type RelayMetrics = MetricsSink;

export function relayMetrics(sink: MetricsSink): RelayMetrics {
  const expose = sink.expose?.bind(sink);
  const ledger = sink.ledger?.bind(sink);
  const webhook = sink.webhook?.bind(sink);
  return {
    award: (label) => sink.award(label),
    limited: (limit) => sink.limited(limit),
    storeError: (behaviour) => sink.storeError(behaviour),
    request: (status) => sink.request(status),
    inFlight: (delta) => sink.inFlight(delta),
    upstream: (method, result, seconds) => sink.upstream(method, result, seconds),
    ...(expose ? { expose } : {}),
    ...(ledger ? { ledger } : {}),
    ...(webhook ? { webhook } : {}),
  };
}

const resultLabel = (result: UpstreamResult) => (result.kind === 'failure' ? result.reason : `${Math.floor(result.status / 100)}xx`);

/** The upstream client with every call timed into the sink. */
export function timedUpstream(upstream: Upstream, metrics: RelayMetrics): Upstream {
  return {
    ...upstream,
    async send(request, options) {
      const started = performance.now();
      const result = await upstream.send(request, options);
      metrics.upstream(request.method, resultLabel(result), (performance.now() - started) / 1000);
      return result;
    },
  };
}
