import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo, type Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { ConfigError } from './errors.js';

/** How long a client may take, and how many may be connected: what keeps a slow or crowded client from holding the server. */
export interface ServerLimits {
  /** The whole request head (line and headers) must arrive within this; default 10 000 ms. */
  headersTimeoutMs?: number;
  /** The whole request, body included, must arrive within this, or the connection is cut (408); default 30 000 ms. */
  requestTimeoutMs?: number;
  /**
   * Open connections at once. At the cap, a connection silent for over a second (no request head yet) or else the one
   * idle the longest (a keep-alive socket between requests) is closed to admit the new one; only when every
   * connection is busy or just accepted is the new one closed on accept. Default 4096.
   */
  maxConnections?: number;
  /** An idle keep-alive connection is closed after this; default 5 000 ms. */
  keepAliveTimeoutMs?: number;
  /** close(): in-flight requests get this long to finish before their connections are cut; default 10 000 ms. */
  shutdownGraceMs?: number;
}

/** The defaults of ServerLimits, each chosen so one slow or crowded client cannot hold a server. */
export const SERVER_LIMITS = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 4096,
  keepAliveTimeoutMs: 5_000,
  shutdownGraceMs: 10_000,
} as const satisfies Required<ServerLimits>;

/** What Node adapters pass as the second fetch argument. */
export type NodeBindings = { incoming: IncomingMessage };

export interface ServeOptions extends ServerLimits {
  fetch: (request: Request, env: NodeBindings) => Response | Promise<Response>;
  host: string;
  port: number;
  /** Refuse a host whose addresses fail this (dev mode: loopback only); checked on every resolved address. */
  checkAddress?: (address: string, host: string) => void;
  /** Asked first for each request: true when it answered the request itself (a fast path), false to go to `fetch`. */
  handle?: (request: IncomingMessage, response: ServerResponse) => boolean;
}

/** A listening server, as the start functions resolve it. */
export interface RunningServer {
  /** http://HOST:PORT (IPv6 in brackets). */
  url: string;
  /** The bound port (the one picked, when 0 was asked). */
  port: number;
  /** Stop accepting, let in-flight requests finish (up to shutdownGraceMs), close keep-alive connections. */
  close(): Promise<void>;
}

/** Split a start function's options into the server limits and the rest (the app's own options). */
export function takeLimits<T extends ServerLimits>(options: T): [ServerLimits, Omit<T, keyof ServerLimits>] {
  const limits: ServerLimits = {};
  const rest: Record<string, unknown> = { ...(options as Record<string, unknown>) };
  for (const name of Object.keys(SERVER_LIMITS) as (keyof ServerLimits)[]) {
    if (options[name] !== undefined) limits[name] = options[name];
    delete rest[name];
  }
  return [limits, rest as Omit<T, keyof ServerLimits>];
}

export function resolveLimits(limits: ServerLimits): Required<ServerLimits> {
  const resolved = { ...SERVER_LIMITS } as Required<ServerLimits>;
  for (const name of Object.keys(SERVER_LIMITS) as (keyof ServerLimits)[]) {
    const value = limits[name];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) throw new ConfigError(name, 'invalid', `${name} must be a positive integer, got ${value}`);
    resolved[name] = value;
  }
  // A short request timeout alone shortens the head's default too; both given and at odds is an error.
  if (limits.headersTimeoutMs === undefined) resolved.headersTimeoutMs = Math.min(resolved.headersTimeoutMs, resolved.requestTimeoutMs);
  if (resolved.headersTimeoutMs > resolved.requestTimeoutMs) {
    throw new ConfigError('headersTimeoutMs', 'invalid', 'headersTimeoutMs must not exceed requestTimeoutMs');
  }
  return resolved;
}

/** The addresses a host name stands for; a name that resolves to nothing is a one-line ConfigError, not a stack. */
export async function resolveHost(host: string): Promise<string[]> {
  if (host.trim() === '') throw new ConfigError('host', 'invalid', 'host must not be empty');
  if (isIP(host)) return [host];
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError('host', 'host_not_found', `host "${host}" does not resolve to an address (${code})`);
  }
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === 'EADDRINUSE') {
    return new ConfigError('port', 'port_unavailable', `port ${port} on ${host} is in use; pass a free port (0 picks one)`);
  }
  if (error.code === 'EACCES') return new ConfigError('port', 'port_unavailable', `port ${port} on ${host} may not be bound by this user`);
  if (error.code === 'EADDRNOTAVAIL') return new ConfigError('host', 'host_not_found', `host "${host}" is not an address of this machine`);
  return error;
}

/** A fetch handler on Node (@hono/node-server), with the limits above. Resolves once listening; port 0 picks one. */
export async function startNodeServer(options: ServeOptions): Promise<RunningServer> {
  const limits = resolveLimits(options);
  const addresses = await resolveHost(options.host);
  for (const address of addresses) options.checkAddress?.(address, options.host);
  const { handle } = options;
  const server = serve({
    fetch: options.fetch as (request: Request, env: unknown) => Response | Promise<Response>,
    hostname: options.host,
    port: options.port,
    ...(handle
      ? {
          // @hono/node-server's own listener for every request the fast path does not take.
          createServer: ((serverOptions: ServerOptions, listener: RequestListener) =>
            createServer(serverOptions, (request, response) => {
              if (!handle(request, response)) listener(request, response);
            })) as unknown as typeof createServer,
        }
      : {}),
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks those timeouts (its default, 30 s, would let a slow client overstay by that much).
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  }) as Server;
  const connections = capConnections(server, limits.maxConnections);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', (error) => reject(listenError(error, options.host, options.port)));
  });
  const info = server.address() as AddressInfo;
  // A name stays a name (localhost); an address is shown as bound, IPv6 in brackets.
  const bound = info.family === 'IPv6' ? `[${info.address}]` : info.address;
  const shownHost = isIP(options.host) ? bound : options.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${info.port}`,
    port: info.port,
    close: () => (closing ??= closeGracefully(server, limits.shutdownGraceMs, connections)),
  };
}

/**
 * How long a connection that has not sent a request head yet is left alone. close() waits this long for it: one
 * accepted just before close() may have it on its way (served), one a browser opened ahead of need (a preconnect)
 * never sends one (closed then, instead of holding the shutdown for shutdownGraceMs). At the connection cap, one
 * silent longer than this is the first reclaimed for a newcomer.
 */
export const SILENT_CONNECTION_MS = 1_000;

/** The server's connections as capConnections tracks them. */
interface Connections {
  open: Set<Socket>;
  /** Between a request's head and its answer's end. */
  busy: Set<Socket>;
}

/**
 * The connection cap, reclaiming before it refuses (as nginx does when it runs out of connections): Node's own
 * maxConnections closes a new connection at the cap even while thousands of idle keep-alive sockets (browsers keep
 * theirs) hold every slot. Here, at the cap, a connection that has been silent past SILENT_CONNECTION_MS (accepted, no
 * request head yet: a preconnect never used, or a client holding slots with heads it never finishes) goes first, then
 * the one idle the longest; only when every connection is busy or freshly accepted is the new one closed on accept.
 * Without the silent ones, a client holding the cap in sockets that send nothing shut everyone out until
 * headersTimeout, and again after it. A client that was just reusing an idle socket sees it closed, as at its
 * keep-alive timeout, and resends (HTTP clients do so on a reused connection; awards carry their key).
 */
function capConnections(server: Server, cap: number): Connections {
  const open = new Set<Socket>();
  const busy = new Set<Socket>();
  // Insertion order is idle-since order: the first entry has been idle the longest.
  const idle = new Set<Socket>();
  // Accepted, no request head yet, with when: insertion order is accept order, so the first has waited the longest.
  const silent = new Map<Socket, number>();
  const reclaimable = (now: number): Socket | undefined => {
    const [oldest] = silent;
    if (oldest && now - oldest[1] >= SILENT_CONNECTION_MS) return oldest[0];
    return idle.values().next().value;
  };
  server.on('connection', (socket: Socket) => {
    const now = performance.now();
    if (open.size >= cap) {
      const victim = reclaimable(now);
      if (!victim) {
        socket.destroy();
        return;
      }
      for (const set of [open, idle, busy]) set.delete(victim);
      silent.delete(victim);
      victim.destroy();
    }
    open.add(socket);
    silent.set(socket, now);
    socket.once('close', () => {
      open.delete(socket);
      idle.delete(socket);
      busy.delete(socket);
      silent.delete(socket);
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    silent.delete(socket);
    idle.delete(socket);
    busy.add(socket);
    response.once('finish', () => {
      busy.delete(socket);
      if (!socket.destroyed && open.has(socket)) idle.add(socket);
    });
  });
  return { open, busy };
}

function closeGracefully(server: Server, graceMs: number, connections: Connections): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // A keep-alive connection becomes idle when its request ends: close those as they appear, cut the rest at the end.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    // A request still arriving on an open connection is served, and told the connection ends with it: a client that
    // pools connections (a balancer) does not send its next request on a socket about to be closed.
    server.on('request', (_request: IncomingMessage, response: ServerResponse) => response.setHeader('connection', 'close'));
    // Only after a poll: a loop held past the timer (a loaded machine) runs timers before it reads the sockets, and a
    // request head that had arrived meanwhile would be cut unread.
    const silent = setTimeout(
      () =>
        afterNextPoll(() => {
          for (const socket of connections.open) if (!connections.busy.has(socket)) socket.destroy();
        }),
      Math.min(SILENT_CONNECTION_MS, graceMs),
    );
    // The listener closes after the event loop has polled once more, not now: a connection the kernel completed
    // while the loop was busy (a loaded machine; the drain delay's timer runs before the poll that would accept it)
    // waits in the listener's queue with the client's request already sent, and closing the listener resets it (a
    // balancer answers 502 and does not resend a POST). A poll accepts every queued one, served like the rest. Two
    // immediates: called from the poll phase, the first runs in this very iteration's check phase, before any poll.
    afterNextPoll(() =>
      server.close((error) => {
        clearInterval(sweep);
        clearTimeout(cut);
        clearTimeout(silent);
        if (error && (error as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(error);
        else resolve();
      }),
    );
    server.closeIdleConnections();
  });
}

/** Runs `then` once the event loop has been through a poll phase (its I/O seen) since the call. */
function afterNextPoll(then: () => void): void {
  setImmediate(() => setImmediate(then));
}
