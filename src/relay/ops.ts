import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { errorBody } from '../kit/http.js';
import { paths } from '../protocol/index.js';
import type { RelayEnv, RelayRuntime } from './context.js';
import { outageOf } from './outcome.js';

/** The operations routes (no token needed): liveness, readiness (the service and the counter store), Prometheus text. */
export const OPS_PATHS = { health: '/healthz', ready: '/readyz', metrics: '/metrics' } as const;

/** How long /readyz waits for the service, and how long one answer is reused (it costs a call to the service). */
const READY_TIMEOUT_MS = 2_000;
const READY_CACHE_MS = 1_000;

type Check = { ok: true; detail: string } | { ok: false; detail: string };
type Readiness = { ready: boolean; checks: Record<string, string> };

export interface OpsState {
  /** Set when shutdown starts: /readyz answers 503 so load balancers stop sending new requests. */
  draining: boolean;
}

/**
 * GET /healthz (alive), /readyz (the service answers, and the counter store when it is shared), /metrics
 * (Prometheus text when the relay's metrics sink exposes it, else 404; bearer metricsToken when set). No player
 * token: they are for the operator's probes.
 */
export function operatorRoutes(runtime: RelayRuntime, state: OpsState, metricsToken: string | undefined): Hono<RelayEnv> {
  const app = new Hono<RelayEnv>();
  let cached: { at: number; answer: Promise<Readiness> } | undefined;

  const serviceCheck = async (): Promise<Check> => {
    // Any answer but a 5xx or a 401 means the service is there and takes the relay's key. A probe that did not answer
    // in time is cancelled: left running, each probe past the cache's second would hold a connection to the service
    // until the upstream timeout.
    const cancel = new AbortController();
    const probe = runtime.upstream.send({ method: 'GET', path: paths.pointsOf('readyz', 'readyz'), requestId: 'readyz', signal: cancel.signal });
    const timeout = new Promise<Check>((resolve) => {
      setTimeout(() => {
        cancel.abort();
        resolve({ ok: false, detail: `did not answer within ${READY_TIMEOUT_MS} ms` });
      }, READY_TIMEOUT_MS).unref?.();
    });
    const answer = probe.then((result): Check => {
      const outage = outageOf(result);
      return outage ? { ok: false, detail: outage.message } : { ok: true, detail: 'ok' };
    });
    return Promise.race([answer, timeout]);
  };
  const storeCheck = async (): Promise<Check> => {
    if (!runtime.store.ready) return { ok: true, detail: 'ok (in memory)' };
    try {
      await runtime.store.ready();
      return { ok: true, detail: 'ok' };
    } catch (error) {
      return { ok: false, detail: error instanceof Error ? error.message : 'unavailable' };
    }
  };
  const readiness = async (): Promise<Readiness> => {
    const [service, store] = await Promise.all([serviceCheck(), storeCheck()]);
    return { ready: service.ok && store.ok, checks: { service: service.detail, store: store.detail } };
  };

  app.get(OPS_PATHS.health, (c) => c.json({ success: true, data: { status: 'ok' } }));
  app.get(OPS_PATHS.ready, async (c) => {
    if (state.draining) return c.json({ ...errorBody('not ready: shutting down'), checks: { relay: 'shutting down' } }, 503);
    // Concurrent and back-to-back probes share one check: an unauthenticated route must not multiply calls to the service.
    if (!cached || performance.now() - cached.at > READY_CACHE_MS) cached = { at: performance.now(), answer: readiness() };
    const { ready, checks } = await cached.answer;
    if (ready) return c.json({ success: true, data: checks });
    const failing = Object.entries(checks).filter(([, detail]) => !detail.startsWith('ok'));
    return c.json({ ...errorBody(`not ready: ${failing.map(([name, detail]) => `${name}: ${detail}`).join('; ')}`), checks }, 503);
  });
  if (metricsToken !== undefined) {
    app.use(
      OPS_PATHS.metrics,
      bearerAuth({
        token: metricsToken,
        noAuthenticationHeaderMessage: errorBody('GET /metrics needs "Authorization: Bearer <metrics token>"'),
        invalidAuthenticationHeaderMessage: errorBody('Authorization header must be "Bearer <metrics token>"'),
        invalidTokenMessage: errorBody('metrics token invalid'),
      }),
    );
  }
  app.get(OPS_PATHS.metrics, async (c) => {
    // Workers, Deno, Bun and framework mounts count nothing unless given a sink that exposes Prometheus text.
    if (!runtime.metrics.expose) return c.json(errorBody('no metrics on this relay: it was created without a Prometheus metrics sink'), 404);
    const { body, contentType } = await runtime.metrics.expose();
    return c.body(body, 200, { 'content-type': contentType });
  });
  return app;
}
