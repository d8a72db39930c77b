import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import { REQUEST_ID_HEADER } from '../protocol/index.js';
import { authentication, type Authenticate } from './authenticate.js';
import { batchRoute } from './batch.js';
import { logEvent, redactFor, type RelayEnv, type RelayRuntime } from './context.js';
import { createMemoryCounterStore, type CounterStore } from './counter-store.js';
import { clientIp, originPolicy, securityHeaders } from './hygiene.js';
import { createKeyScope } from './keys.js';
import { jsonLinesToStderr, levelOfStatus, type LogSink } from './logger.js';
import { createPlayerQueue } from './player-queue.js';
import { resolvePolicy, type RelayPolicy } from './policy.js';
import { checkRateLimit } from './rate-limit.js';
import { fail } from './respond.js';
import { serviceRoutes } from './routes.js';
import { createUpstream, type UpstreamOptions } from './upstream.js';
import { wellFormedPath } from './validate.js';

/** Below the SDK's default request timeout (10 s), so the SDK reads the relay's answer instead of timing out. */
const DEFAULT_DEADLINE_MS = 8000;

export interface RelayOptions {
  /** The Quest Points Service; url and apiKey default to QP_UPSTREAM_URL and QP_API_KEY. */
  upstream?: UpstreamOptions;
  /** HS256 secret for player tokens, at least 32 characters; default process.env.QP_RELAY_SECRET. */
  secret?: string;
  /** Replaces JWT auth: resolve the caller's claims from the operator's own session, or null (401). */
  authenticate?: Authenticate;
  /** The award policy, or the path of a JSON file holding it; default DEFAULT_POLICY. */
  policy?: RelayPolicy | string;
  /** Exact origins allowed to call from a browser, e.g. https://game.example.com. */
  corsOrigins?: string[];
  /** Where rate-limit counters live; default in this process's memory. */
  rateLimitStore?: CounterStore;
  /** Structured records; default JSON lines on stderr. */
  logger?: LogSink;
  /** Awards of a batch in flight toward the service at once; default 8. */
  batchConcurrency?: number;
  /**
   * Each award request (single or batch) is answered within this many ms: awards not sent or not answered by then
   * come back `retry` (a single award 504). Default 8000, below the SDK's 10 s request timeout.
   */
  deadlineMs?: number;
  /** Proxies of your own in front of the relay: true = 1, or a count. Default false (socket address only). */
  trustProxy?: boolean | number;
}

/** The relay as a Web-standard fetch handler (`app.fetch`): Node (startRelay), Workers, Deno, Bun. */
export function createRelay(options: RelayOptions = {}): Hono<RelayEnv> {
  const secret = options.secret ?? globalThis.process?.env?.QP_RELAY_SECRET;
  const upstream = createUpstream(options.upstream, [secret]);
  const runtime: RelayRuntime = {
    policy: resolvePolicy(options.policy),
    upstream,
    store: options.rateLimitStore ?? createMemoryCounterStore(),
    log: options.logger ?? jsonLinesToStderr,
    batchConcurrency: Math.max(1, Math.floor(options.batchConcurrency ?? 8)),
    deadlineMs: Math.max(1, options.deadlineMs ?? DEFAULT_DEADLINE_MS),
    // Without a relay secret (an operator's own authenticate()), the API key is the deployment's secret.
    upstreamKey: createKeyScope((secret ?? upstreamApiKey(options))!),
    players: createPlayerQueue(),
    secrets: [upstreamApiKey(options), secret].filter((s): s is string => Boolean(s)),
  };
  const auth = authentication({ secret, authenticate: options.authenticate });
  const trustProxy = options.trustProxy ?? false;

  const app = new Hono<RelayEnv>();
  app.use(requestId({ headerName: REQUEST_ID_HEADER, limitLength: 64 }));
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    const status = c.res.status;
    logEvent(runtime, c, levelOfStatus(status), 'request', { status, ms: Math.round((performance.now() - started) * 10) / 10 });
  });
  app.use(...securityHeaders);
  app.use(...originPolicy(options.corsOrigins ?? []));
  app.use(wellFormedPath);
  const perIp = runtime.policy.rateLimits.perIp;
  if (perIp) {
    app.use(async (c, next) => {
      const limited = await checkRateLimit(runtime.store, perIp, 'perIp', clientIp(c, trustProxy));
      if (limited) return fail(c, limited);
      await next();
    });
  }
  app.use(auth);
  app.route('/', serviceRoutes(runtime));
  app.route('/', batchRoute(runtime));

  app.notFound((c) =>
    fail(c, { status: 404, message: redactFor(runtime, c, `no route ${c.req.method} ${new URL(c.req.url).pathname}`) }),
  );
  app.onError((error, c) => {
    logEvent(runtime, c, 'error', `unexpected: ${error instanceof Error ? error.message : String(error)}`, { status: 500 });
    return fail(c, { status: 500, message: `internal error (request ${c.get('requestId') ?? 'unknown'})` });
  });
  return app;
}

const upstreamApiKey = (options: RelayOptions) => options.upstream?.apiKey ?? globalThis.process?.env?.QP_API_KEY;
