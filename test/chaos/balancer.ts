// The harness's load balancer: round robin over the relays whose GET /readyz answered 200 at the last health check
// (every 100 ms; when none did, over all of them, as balancers fail open), a fresh connection per request (no idle
// keep-alive connection a relay could close under a request), and a request tried on the next relay only when the
// first refused the connection — nothing of it reached that relay, as real balancers do (nginx's proxy_next_upstream
// error does not resend a POST once it was sent). A request cut after it reached a relay is answered 502 and
// blamed on what that relay was doing then (a SIGTERM must cut nothing; a SIGKILL cuts what it had).
import { get as httpGet, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RelayState } from './fleet.js';

/** Why the balancer answered a 5xx itself, or where a relay's 5xx came from. */
export type Cause = 'refused' | `cut-${RelayState}` | 'relay';

export interface BalancerStats {
  /** 5xx answers by "status cause": `502 refused` (every relay refused), `502 cut-terminating`, `503 relay`, ... */
  fiveXx: Record<string, number>;
  /** Requests sent on to the next relay after a refused connection. */
  retriedOnRefused: number;
  /** Requests per relay port. */
  perRelay: Record<string, number>;
  /** Requests every relay refused, by what the relays were doing then ("running+starting", ...). */
  refusedWhile: Record<string, number>;
}

export interface Balancer {
  stats: BalancerStats;
  /** Forwards the request (path: what the relay sees) and calls done(status) once (0: the client went away first). */
  forward(req: IncomingMessage, res: ServerResponse, path: string, done: (status: number) => void): void;
  reset(): void;
  /** Ends the health checks. */
  stop(): Promise<void>;
}

const HEALTH_CHECK_MS = 100;

/**
 * A probe's answer is awaited this long: with each relay on its own loop, a relay told to stop (its /readyz says 503)
 * leaves the rotation within HEALTH_CHECK_MS + PROBE_TIMEOUT_MS = 600 ms, inside the fleet's 1 s drain delay.
 */
const PROBE_TIMEOUT_MS = 500;

/** GET /readyz on a fresh connection: 200 within PROBE_TIMEOUT_MS, or out of rotation. */
const ready = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = httpGet({ host: '127.0.0.1', port, path: '/readyz', agent: false, timeout: PROBE_TIMEOUT_MS }, (answer) => {
      answer.resume();
      resolve(answer.statusCode === 200);
    });
    probe.on('timeout', () => probe.destroy());
    probe.on('error', () => resolve(false));
  });

const answer502 = (res: ServerResponse, message: string) => {
  res.writeHead(502, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ success: false, message }));
};

export function createBalancer(ports: () => number[], state: (port: number) => RelayState): Balancer {
  let next = 0;
  const healthy = new Set<number>();
  let stopped = false;
  const pause = () => new Promise((resolve) => setTimeout(resolve, HEALTH_CHECK_MS));
  // Each relay probed on its own loop: with one loop over all of them, a slow probe (a relay starting, a loaded
  // machine: up to its timeout) held every other relay's next check, and a terminating relay stayed in rotation
  // past its drain delay. Even so, a probe answered 200 just before the SIGTERM can arrive late on a loaded machine: a
  // relay may stay in rotation a little past its drain delay. A connection it takes then is served (the relay accepts
  // what the kernel queued before its listener closes: kit/server.ts) or refused (tried on the next relay), never cut.
  const probing = new Map<number, Promise<void>>();
  const probe = async (port: number) => {
    while (!stopped && ports().includes(port)) {
      if (await ready(port)) healthy.add(port);
      else healthy.delete(port);
      await pause();
    }
    probing.delete(port);
  };
  const checks = (async () => {
    while (!stopped) {
      for (const port of ports()) if (!probing.has(port)) probing.set(port, probe(port));
      await pause();
    }
    await Promise.all(probing.values());
  })();
  const stats: BalancerStats = { fiveXx: {}, retriedOnRefused: 0, perRelay: {}, refusedWhile: {} };
  const count5xx = (status: number, cause: Cause) => {
    const key = `${status} ${cause}`;
    stats.fiveXx[key] = (stats.fiveXx[key] ?? 0) + 1;
  };

  function forward(req: IncomingMessage, res: ServerResponse, path: string, done: (status: number) => void) {
    let finished = false;
    const finish = (status: number) => {
      if (finished) return;
      finished = true;
      done(status);
    };
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => finish(0));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      // The relays in rotation first (round robin), then the others: a refused request is answered 502 only when
      // every relay refused it (a health check is up to 100 ms old, and a relay may fail one for its service).
      const all = ports();
      const inRotation = all.filter((port) => healthy.has(port));
      const pool = inRotation.length ? inRotation : all;
      const start = next++ % pool.length;
      const order = [...pool.slice(start), ...pool.slice(0, start), ...all.filter((port) => !pool.includes(port))];
      attempt(body, order, 0, 0);
    });

    function attempt(body: Buffer, order: number[], first: number, tried: number) {
      if (res.destroyed) return finish(0);
      if (tried >= order.length) {
        count5xx(502, 'refused');
        const states = order.map((port) => state(port)).join('+');
        stats.refusedWhile[states] = (stats.refusedWhile[states] ?? 0) + 1;
        answer502(res, 'no relay accepted the connection');
        return finish(502);
      }
      const port = order[(first + tried) % order.length]!;
      let connected = false;
      const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: `127.0.0.1:${port}`, connection: 'close' };
      delete headers['keep-alive'];
      const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path, headers, agent: false }, (relayAnswer) => {
        const status = relayAnswer.statusCode ?? 502;
        if (status >= 500) count5xx(status, 'relay');
        res.writeHead(status, relayAnswer.headers);
        relayAnswer.pipe(res);
        relayAnswer.on('end', () => finish(status));
        relayAnswer.on('error', () => {
          res.destroy();
          finish(0);
        });
      });
      upstream.on('socket', (socket) =>
        socket.once('connect', () => {
          connected = true;
          stats.perRelay[port] = (stats.perRelay[port] ?? 0) + 1;
        }),
      );
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (!connected && error.code === 'ECONNREFUSED') {
          if (tried + 1 < order.length) stats.retriedOnRefused++;
          return attempt(body, order, first, tried + 1);
        }
        // The client went away first: not the relay's doing (the proxy aborted the request upstream).
        if (res.destroyed) return finish(0);
        if (res.headersSent) {
          res.destroy();
          return finish(0);
        }
        count5xx(502, `cut-${state(port)}`);
        answer502(res, 'the relay cut the connection');
        finish(502);
      });
      // A page that goes away aborts its request upstream too (as nginx does by default).
      res.on('close', () => {
        if (!res.writableFinished) {
          upstream.destroy();
          finish(0);
        }
      });
      upstream.end(body);
    }
  }

  return {
    stats,
    forward,
    reset() {
      stats.fiveXx = {};
      stats.retriedOnRefused = 0;
      stats.perRelay = {};
      stats.refusedWhile = {};
    },
    async stop() {
      stopped = true;
      await checks;
    },
  };
}
