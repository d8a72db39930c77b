import { Hono } from 'hono';
import { pathRefusal } from '../kit/http.js';
import { routes } from '../protocol/index.js';
import { ADMIN_PREFIX, adminRoutes } from './admin.js';
import { DROPPED, awardHandler } from './award.js';
import { createCore, type Core } from './core.js';
import type { EmulatorEnv } from './env.js';
import { injectFaults, requireApiKey } from './guards.js';
import { fail } from './http.js';
import { enrolledUsersHandler, enrollmentHandler, identifyHandler, pointsHandler } from './queries.js';
import type { RequestLogEntry } from './request-log.js';
import type { EmulatorOptions } from './types.js';

/** The emulator and the state behind it (the CLI and startEmulator export state without going through HTTP). */
export function buildEmulator(options: EmulatorOptions = {}): {
  /** The emulator's routes: the same app createEmulator() returns. */
  app: Hono<EmulatorEnv>;
  /**
   * The state behind the routes (users, ledger, idempotency store, request log, faults), for this package's Node
   * adapter, CLI and tests. Its parts are not a stable API; exportState() and importState() are the supported way in.
   * @internal
   */
  core: Core;
} {
  const core = createCore(options);
  const app = new Hono<EmulatorEnv>();

  // Never the error itself: it may carry request data or internals.
  app.onError(() => fail(500, 'internal error'));
  app.notFound(() => fail(404, 'route not found'));

  if (options.admin) app.route(ADMIN_PREFIX, adminRoutes(core));

  // Request log: every service request (admin calls are not logged). Only method, path, status, key, fault.
  app.use('*', async (c, next) => {
    if (options.admin && c.req.path.startsWith(`${ADMIN_PREFIX}/`)) return next();
    const url = c.req.url;
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    const entry: RequestLogEntry = {
      seq: core.log.nextSeq(),
      at: new Date(core.now()).toISOString(),
      method: c.req.method,
      path: url.slice(pathStart),
      status: 0,
    };
    c.set('log', entry);
    try {
      await next();
    } finally {
      entry.status = entry.fault === 'lost-ack-drop' ? 0 : c.res.status;
      core.log.add(entry);
    }
  });

  app.use('*', async (c, next) => {
    const refused = pathRefusal(c.req.url);
    if (refused) return fail(refused.status, refused.message);
    await next();
  });

  const auth = requireApiKey(core);
  app.post(routes.points, auth, injectFaults(core, { awardRoute: true }), awardHandler(core));
  app.post(routes.identify, auth, injectFaults(core), identifyHandler(core));
  app.get(routes.pointsOf, auth, injectFaults(core), pointsHandler(core));
  app.get(routes.enrollment, auth, injectFaults(core), enrollmentHandler(core));
  app.get(routes.enrolledUsers, auth, injectFaults(core), enrolledUsersHandler(core));

  // A dropped connection in-process is what fetch does on a network failure: the promise rejects.
  const dispatch = app.fetch;
  app.fetch = async (request, env, executionCtx) => {
    const response = await dispatch(request, env, executionCtx);
    if ((response as Response & { [DROPPED]?: true })[DROPPED] && !(env as { incoming?: unknown } | undefined)?.incoming) {
      throw new TypeError('fetch failed: the emulator dropped the connection (lost-acknowledgement fault)');
    }
    return response;
  };
  return { app, core };
}

/** A Quest Points Service as a Web-standard fetch handler (`app.fetch(request)`). */
export function createEmulator(options: EmulatorOptions = {}): Hono<EmulatorEnv> {
  return buildEmulator(options).app;
}
